#!/usr/bin/env bash
# test-rs3.sh runs the distribution tests of ./hbase against an HBase of its
# own with three region servers in the JVM (make hbase-up RS=3): the
# batch and scan tests over many regions, splits under load, the admin
# region tests, and TestIntegrationThreeServers (regions really spread over
# the three servers; a 10,000-action batch over all of them).
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/rs3-state) and its own ports (ZooKeeper 2481, master 16300;
# the region servers take ephemeral loopback ports; HBKIT_RS3_ZK_PORT and
# HBKIT_RS3_MASTER_PORT move them). It is started fresh and always stopped at
# exit.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="$cache/rs3-state"
export HBKIT_ZK_PORT="${HBKIT_RS3_ZK_PORT:-2481}"
export HBKIT_MASTER_PORT="${HBKIT_RS3_MASTER_PORT:-16300}"
export RS=3
. tools/private-hbase.sh

start=$SECONDS
private_hbase_up -rs 3
export HBKIT_EXPECT_SERVERS=3
private_hbase_run test-rs3 hbase \
	'(TestIntegration(ThreeServers|BigBatch|ScanAcrossRegions|SplitDuringScanAndWrites)|TestAdminIntegrationRegions)' 8m
echo "test-rs3: passed in $((SECONDS - start))s"
