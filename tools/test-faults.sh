#!/usr/bin/env bash
# test-faults.sh runs the wire-fault scenarios of issue 34
# (index/faults_integration_test.go, TestFaults) against an HBase of its own
# with two region servers: SMS records written through dao in every write
# mode, and read through the index, by a client whose connections go through
# internal/faultnet (answers reset after the server acted, half-open peers,
# latency spikes, a 64 KB/s link, flipped bits, shortened and lengthened
# frames; one subtest of TestFaults each: reset, halfopen, latency, slowlink,
# corrupt, frames). Every acknowledged record must read back exactly once through the
# data table and the index, no call may outlast its bound, no connection stay
# wedged, no goroutine be left behind, and Check must be clean after repair.
#
#   HBKIT_FAULTS_DURATION   how long each scenario's faults last (default 5s;
#                           60s for the table of docs/faults.md)
#   HBKIT_FAULTS_REPORT     write the table of counts to this file
#                           (e.g. docs/faults.md)
#   HBKIT_FAULTS_RUN        which scenarios (a -test.run pattern under
#                           TestFaults, e.g. 'reset|halfopen'; default all)
#   HBKIT_FAULTS_SEED       the seed of the random faults (default: the clock)
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/faults-state, or HBKIT_FAULTS_STATE) and its own ports
# (ZooKeeper 2681, master 16600; the region servers take ephemeral loopback
# ports; HBKIT_FAULTS_ZK_PORT and HBKIT_FAULTS_MASTER_PORT move them). It is
# started fresh and always stopped at exit.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="${HBKIT_FAULTS_STATE:-$cache/faults-state}"
export HBKIT_ZK_PORT="${HBKIT_FAULTS_ZK_PORT:-2681}"
export HBKIT_MASTER_PORT="${HBKIT_FAULTS_MASTER_PORT:-16600}"
export HBKIT_RS_PORT="${HBKIT_FAULTS_RS_PORT:-16620}"
export RS=2
export HBKIT_FAULTS_DURATION="${HBKIT_FAULTS_DURATION:-5s}"
cmd="HBKIT_FAULTS_DURATION=$HBKIT_FAULTS_DURATION"
if [ -n "${HBKIT_FAULTS_REPORT:-}" ]; then
	cmd="$cmd HBKIT_FAULTS_REPORT=$HBKIT_FAULTS_REPORT"
	HBKIT_FAULTS_REPORT=$(realpath -m "$HBKIT_FAULTS_REPORT")
	export HBKIT_FAULTS_REPORT
fi
export HBKIT_FAULTS_COMMAND="$cmd make test-faults"
. tools/private-hbase.sh

start=$SECONDS
PRIVATE_HBASE_TESTS=index private_hbase_up -rs 2
private_hbase_run test-faults index "TestFaults/(${HBKIT_FAULTS_RUN:-.*})" 30m
echo "test-faults: passed in $((SECONDS - start))s"
