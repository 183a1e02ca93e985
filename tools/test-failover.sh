#!/usr/bin/env bash
# test-failover.sh runs TestIntegrationFailover (hbase/failover_integration_test.go)
# against an HBase of its own with three region servers: one region server
# is stopped under load (meta lookups are counted while its regions are
# reassigned), then the whole HBase is restarted under a client making
# admin calls, which must succeed again on the same client.
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/failover-state) and its own ports (ZooKeeper 2781, master
# 16700; the region servers take ephemeral loopback ports;
# HBKIT_FAILOVER_ZK_PORT and HBKIT_FAILOVER_MASTER_PORT move them). It is
# started fresh and always stopped at exit.
#
#   tools/test-failover.sh           the whole run (make test-failover)
#   tools/test-failover.sh restart   stop the instance (the master's Shutdown
#                                    RPC) and start it again on the same
#                                    state; the test runs this as
#                                    HBKIT_FAILOVER_RESTART_CMD
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="$cache/failover-state"
export HBKIT_ZK_PORT="${HBKIT_FAILOVER_ZK_PORT:-2781}"
export HBKIT_MASTER_PORT="${HBKIT_FAILOVER_MASTER_PORT:-16700}"
export RS=3

if [ "${1:-}" = restart ]; then
	t0=$(date +%s%N)
	# Keep the log of the first phase: a start writes a fresh one.
	cp "$HBKIT_STATE/logs/hbase.log" "$HBKIT_STATE/logs/hbase.log.before-restart" 2>/dev/null || true
	bin/hbase-local down >&2
	bin/hbase-local up >&2
	echo "test-failover: stopped and ready again in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
	exit 0
fi

. tools/private-hbase.sh

start=$SECONDS
private_hbase_up -rs 3
export HBKIT_FAILOVER_RESTART_CMD="'$PWD/tools/test-failover.sh' restart"
private_hbase_run test-failover hbase TestIntegrationFailover 6m
echo "test-failover: passed in $((SECONDS - start))s"
