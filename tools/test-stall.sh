#!/usr/bin/env bash
# test-stall.sh runs the stall tests (hbase/stall_integration_test.go,
# index/stall_integration_test.go) against an HBase of its own, whose JVM
# they stop with SIGSTOP while a client with short timeouts (operation 6s,
# RPC 2s) keeps calling:
#
#   TestIntegrationStall            stopped for twice the operation timeout,
#                                   within the ZooKeeper session timeout
#   TestIntegrationStallPastSession stopped past the session timeout: HBase
#                                   aborts when it resumes, this script
#                                   starts it again, the same client carries on
#   TestIntegrationIndexStall       stopped as in the first, under SMS records
#                                   written through dao in every write mode;
#                                   afterwards every acknowledged record reads
#                                   back and Check leaves nothing missing,
#                                   orphaned or stale
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/stall-state), its own ports (ZooKeeper 24181, master 24000,
# region server 24020; HBKIT_STALL_ZK_PORT, HBKIT_STALL_MASTER_PORT and
# HBKIT_STALL_RS_PORT move them) and a ZooKeeper session timeout of 25s
# (HBKIT_STALL_ZK_SESSION, seconds). It is started fresh and always stopped
# at exit.
#
#   tools/test-stall.sh           the whole run (make test-stall)
#   tools/test-stall.sh restart   wait for the aborted JVM to end (kill -9 it if
#                                 it lingers) and start it again; the test runs
#                                 this as HBKIT_STALL_RESTART_CMD
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="$cache/stall-state"
export HBKIT_ZK_PORT="${HBKIT_STALL_ZK_PORT:-24181}"
export HBKIT_MASTER_PORT="${HBKIT_STALL_MASTER_PORT:-24000}"
export HBKIT_RS_PORT="${HBKIT_STALL_RS_PORT:-24020}"
export HBKIT_STALL_ZK_SESSION="${HBKIT_STALL_ZK_SESSION:-25}"
export HBKIT_ZK_SESSION_TIMEOUT="$HBKIT_STALL_ZK_SESSION"
export RS=1
. tools/private-hbase.sh

# ours prints the pid of the JVM of this state directory, only if its command
# line carries the state directory's marker (as the launcher checks).
ours() {
	local pid
	pid=$(cat "$HBKIT_STATE/hbase.pid")
	if ! tr '\0' '\n' <"/proc/$pid/cmdline" | grep -xF -- "-Dhbkit.state=$HBKIT_STATE" >/dev/null; then
		echo "test-stall: pid $pid is not the HBase of $HBKIT_STATE" >&2
		exit 1
	fi
	echo "$pid"
}

# restart waits for the JVM that was stopped past its ZooKeeper session to
# abort: until it ends, or 1s after it logged the abort (it takes some 25s to
# wind down), or at most 60s; kills it if it is still there, keeps its log,
# and starts HBase again on the same state and ports.
restart() {
	local pid t0 log aborted=
	t0=$(date +%s%N)
	pid=$(ours)
	log="$HBKIT_STATE/logs/hbase.log"
	for _ in $(seq 600); do
		[ -e "/proc/$pid" ] || break
		if [ -z "$aborted" ] && grep -qiE 'expired.*abort' "$log"; then
			aborted=$SECONDS
		fi
		if [ -n "$aborted" ] && [ $((SECONDS - aborted)) -ge 1 ]; then
			break
		fi
		sleep 0.1
	done
	if grep -m1 -iE 'expired.*abort' "$log" >&2; then
		echo "test-stall: HBase aborted on its expired ZooKeeper session, as expected" >&2
	else
		echo "test-stall: no abort on an expired session in $log" >&2
	fi
	if [ -e "/proc/$pid" ]; then
		echo "test-stall: pid $pid still runs $((($(date +%s%N) - t0) / 1000000)) ms after SIGCONT; kill -9" >&2
		kill -9 "$pid"
		while [ -e "/proc/$pid" ]; do sleep 0.1; done
	else
		echo "test-stall: pid $pid ended by itself $((($(date +%s%N) - t0) / 1000000)) ms after SIGCONT" >&2
	fi
	cp "$log" "$HBKIT_STATE/logs/hbase.log.aborted" 2>/dev/null || true
	"$launcher" up >&2
	echo "test-stall: ready again $((($(date +%s%N) - t0) / 1000000)) ms after SIGCONT" >&2
}

if [ "${1:-}" = restart ]; then
	restart
	exit 0
fi

start=$SECONDS
PRIVATE_HBASE_TESTS="hbase index" private_hbase_up
export HBKIT_STALL_STATE="$HBKIT_STATE"
export HBKIT_STALL_RESTART_CMD="'$PWD/tools/test-stall.sh' restart"
private_hbase_run test-stall hbase TestIntegrationStall 8m
private_hbase_run test-stall hbase TestIntegrationStallPastSession 8m
# Last: its tables (not dropped, as the instance is thrown away) would
# add regions to the restart of the test before.
private_hbase_run test-stall index TestIntegrationIndexStall 6m
echo "test-stall: passed in $((SECONDS - start))s"
