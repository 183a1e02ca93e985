#!/usr/bin/env bash
# test-restart.sh runs, against an HBase of its own, the tests that SIGKILL
# HBase and start it again, keeping its state, under a writing client:
#
#   TestIntegrationRestart (hbase/restart_integration_test.go): plain Puts;
#   every acknowledged write must be readable afterwards.
#   TestIntegrationIndexRestart (index/restart_integration_test.go): SMS
#   records written through dao in each write mode (strict, mutable,
#   insert-only); every acknowledged record must read back through the data
#   table and through the index, and Check must leave nothing missing,
#   orphaned or stale.
#   TestJobRestartIntegration (jobs/integration_test.go): a job of 20,000
#   rows on two workers; it completes with every row counted once.
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/restart-state) and its own ports (ZooKeeper 2381, master
# 16200, region server 16220; HBKIT_RESTART_ZK_PORT, HBKIT_RESTART_MASTER_PORT
# and HBKIT_RESTART_RS_PORT move them). It is started fresh and always stopped
# at exit.
#
#   tools/test-restart.sh           the whole run (make test-restart)
#   tools/test-restart.sh restart   kill -9 and restart the instance; the test
#                                   runs this as HBKIT_RESTART_CMD
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="$cache/restart-state"
export HBKIT_ZK_PORT="${HBKIT_RESTART_ZK_PORT:-2381}"
export HBKIT_MASTER_PORT="${HBKIT_RESTART_MASTER_PORT:-16200}"
export HBKIT_RS_PORT="${HBKIT_RESTART_RS_PORT:-16220}"
export RS=1
. tools/private-hbase.sh

# restart kills the JVM recorded for this state directory (only if its command
# line carries this state directory's marker, as the launcher checks), waits
# until it is gone, and starts it again on the same state, so that the master
# recovers the dead region server's WAL.
restart() {
	local pid t0
	t0=$(date +%s%N)
	pid=$(cat "$HBKIT_STATE/hbase.pid")
	if ! tr '\0' '\n' <"/proc/$pid/cmdline" | grep -xF -- "-Dhbkit.state=$HBKIT_STATE" >/dev/null; then
		echo "test-restart: pid $pid is not the HBase of $HBKIT_STATE; not killing it" >&2
		exit 1
	fi
	echo "test-restart: kill -9 $pid" >&2
	kill -9 "$pid"
	while [ -e "/proc/$pid" ]; do sleep 0.1; done
	"$launcher" up >&2
	echo "test-restart: killed and ready again in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
}

if [ "${1:-}" = restart ]; then
	restart
	exit 0
fi

start=$SECONDS
PRIVATE_HBASE_TESTS="hbase index jobs" private_hbase_up
export HBKIT_RESTART_CMD="'$PWD/tools/test-restart.sh' restart"
private_hbase_run test-restart hbase TestIntegrationRestart 6m
private_hbase_run test-restart index TestIntegrationIndexRestart 6m
private_hbase_run test-restart jobs TestJobRestartIntegration 4m
echo "test-restart: passed in $((SECONDS - start))s"
