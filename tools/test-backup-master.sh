#!/usr/bin/env bash
# test-backup-master.sh runs TestIntegrationBackupMaster
# (hbase/backup_master_integration_test.go) against a distributed HBase of
# its own: a ZooKeeper server, two masters and one region server, each in a
# JVM of its own (bin/hbase-local up -masters 2). The test SIGKILLs the
# active master's JVM under a client making admin and data calls; the
# backup master takes over once ZooKeeper expires the dead master's session
# (6 s here), and the same client's admin calls must succeed again.
#
# Its instance never touches the shared local HBase: its own state directory
# ($HBKIT_CACHE/backup-master-state) and its own ports (ZooKeeper 2881,
# masters 16800 and 16810, region server 16820; HBKIT_BACKUP_MASTER_ZK_PORT,
# HBKIT_BACKUP_MASTER_MASTER_PORT (the second master takes it + 10) and
# HBKIT_BACKUP_MASTER_RS_PORT move them). It is started fresh and always
# stopped at exit, every JVM of it.
#
#   tools/test-backup-master.sh        the whole run (make test-backup-master)
#   tools/test-backup-master.sh kill   SIGKILL the active master and say which
#                                      it was; the test runs this as
#                                      HBKIT_BACKUP_MASTER_KILL_CMD
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="$cache/backup-master-state"
export HBKIT_ZK_PORT="${HBKIT_BACKUP_MASTER_ZK_PORT:-2881}"
export HBKIT_MASTER_PORT="${HBKIT_BACKUP_MASTER_MASTER_PORT:-16800}"
export HBKIT_RS_PORT="${HBKIT_BACKUP_MASTER_RS_PORT:-16820}"
export HBKIT_ZK_SESSION_TIMEOUT="${HBKIT_BACKUP_MASTER_ZK_SESSION:-6}"
export HBKIT_HBASE_HEAP="${HBKIT_HBASE_HEAP:-1g}"
export RS=1

if [ "${1:-}" = kill ]; then
	bin/hbase-local masters >&2
	bin/hbase-local kill-master >&2
	exit 0
fi

. tools/private-hbase.sh

start=$SECONDS
private_hbase_up -masters 2
export HBKIT_BACKUP_MASTER_KILL_CMD="'$PWD/tools/test-backup-master.sh' kill"
private_hbase_run test-backup-master hbase TestIntegrationBackupMaster 4m
bin/hbase-local masters
echo "test-backup-master: passed in $((SECONDS - start))s"
