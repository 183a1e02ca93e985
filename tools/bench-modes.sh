#!/usr/bin/env bash
# bench-modes.sh: the write modes against plain and dual writes (README,
# "Write modes"): for batch sizes 100 and 1 and 1 and 4 threads, runs
# `hbkit bench` over the six write workloads in one order, then in the
# reverse order, printing rows/s of every run. HBKIT_ZK names the HBase
# (default 127.0.0.1:2181). With HBKIT_SERVER_PID, the pid of that HBase's
# JVM on this machine, every line also gives the client's and the server's
# CPU time per record (hbkit bench --server-pid).
set -euo pipefail
cd "$(dirname "$0")/.."
zk="${HBKIT_ZK:-127.0.0.1:2181}"
bin="$(mktemp -d)/hbkit"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/hbkit
cpu=()
if [ -n "${HBKIT_SERVER_PID:-}" ]; then
	cpu=(--server-pid "$HBKIT_SERVER_PID")
fi
W1=plainWrite,dualWrite,indexedWrite,mixedPlainWrite,mutableFloor,mutableWrite,verifyOnReadWrite,strictWrite
W2=strictWrite,verifyOnReadWrite,mutableWrite,mutableFloor,mixedPlainWrite,indexedWrite,dualWrite,plainWrite
for cfg in "100 1 10000" "100 4 5000" "1 1 2000" "1 4 1000"; do
	set -- $cfg
	for w in $W1 $W2; do
		echo "== batch=$1 threads=$2 rows=$3 workloads=$w $(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)"
		"$bin" bench --zk "$zk" --rows "$3" --threads "$2" --batch "$1" --workloads "$w" --fresh "${cpu[@]}" 2>&1 | grep -E 'rows/s'
	done
done
