#!/usr/bin/env bash
# with-hbase.sh CMD [ARGS...] runs CMD against an HBase and exports HBKIT_ZK.
#
#   - HBKIT_ZK set:            use that HBase; start nothing.
#   - local HBase already up:  use it; leave it running afterwards.
#   - otherwise:               start a fresh local HBase in its own state
#                              directory ($HBKIT_CACHE/test-state unless
#                              HBKIT_STATE is set), run CMD, then stop it.
set -euo pipefail
cd "$(dirname "$0")/.."

launcher=bin/hbase-local
[ -x "$launcher" ] || go build -o "$launcher" ./tools/hbase

if [ -n "${HBKIT_ZK:-}" ]; then
	echo "with-hbase: using the HBase at HBKIT_ZK=$HBKIT_ZK"
	exec "$@"
fi

if zk=$("$launcher" zk 2>/dev/null) && "$launcher" status >/dev/null 2>&1; then
	echo "with-hbase: using the local HBase that is already up (HBKIT_ZK=$zk)"
	HBKIT_ZK=$zk exec "$@"
fi

# Not up under the default state directory: start a throwaway one, so a
# developer's own local data is never wiped by a test run.
export HBKIT_STATE="${HBKIT_STATE:-${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}/test-state}"
if zk=$("$launcher" zk 2>/dev/null) && "$launcher" status >/dev/null 2>&1; then
	echo "with-hbase: using the local test HBase that is already up (HBKIT_ZK=$zk)"
	HBKIT_ZK=$zk exec "$@"
fi
"$launcher" up -fresh
trap '"$launcher" down' EXIT
export HBKIT_ZK
HBKIT_ZK=$("$launcher" zk)
"$@"
