#!/usr/bin/env bash
# bench-modes.sh: the write modes against plain and dual writes (docs/benchmarks.md,
# "Write modes"): for batch sizes 100 and 1 and 1 and 4 threads, runs
# `hbkit bench` over the eight write workloads in one order, then in the
# reverse order, printing rows/s of every run, then the tables of the
# docs/benchmarks.md (rates and ratios; CPU per record). HBKIT_ZK names the HBase
# (default 127.0.0.1:2181). When that HBase's JVM runs on this machine
# (HBASE_PID, or found as tools/hbase-pid.sh finds it), every line also
# gives the client's and the server's CPU time per record (hbkit bench
# --server-pid): on a machine whose cores both share, the rate follows the
# two together. make bench-modes runs it on the local HBase.
set -euo pipefail
cd "$(dirname "$0")/.."
zk="${HBKIT_ZK:-127.0.0.1:2181}"
bin="$(mktemp -d)/hbkit"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/hbkit
HBKIT_ZK=$zk . tools/hbase-pid.sh
cpu=()
if [ -n "${HBASE_PID:-}" ]; then
	echo "bench-modes: measuring the CPU of the HBase JVM, pid $HBASE_PID"
	cpu=(--server-pid "$HBASE_PID")
fi
W1=plainWrite,dualWrite,indexedWrite,mixedPlainWrite,mutableFloor,mutableWrite,verifyOnReadWrite,strictWrite
W2=strictWrite,verifyOnReadWrite,mutableWrite,mutableFloor,mixedPlainWrite,indexedWrite,dualWrite,plainWrite
out="$(dirname "$bin")/runs.txt"
for cfg in "100 1 10000" "100 4 5000" "1 1 2000" "1 4 1000"; do
	set -- $cfg
	for w in $W1 $W2; do
		echo "== batch=$1 threads=$2 rows=$3 workloads=$w $(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)"
		"$bin" bench --zk "$zk" --rows "$3" --threads "$2" --batch "$1" --workloads "$w" --fresh "${cpu[@]}" 2>&1 | grep -E 'rows/s'
	done
done | tee "$out"

# The tables: one line per hbkit bench run, rows/s of each workload and
# the ratios the goals of issue 15 read; then, when the server was
# measured, CPU µs per record, client / server.
awk '
BEGIN {
	n = split("plainWrite dualWrite indexedWrite mixedPlainWrite mutableFloor mutableWrite verifyOnReadWrite strictWrite", w, " ")
	split("plain dual insert-only mixed-plain floor mutable verify-on-read strict", name, " ")
}
/^== / {
	r++
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	batch[r] = f["batch"]; threads[r] = f["threads"]; utc[r] = $6; load[r] = f["load"]
	order[r] = (f["workloads"] ~ /^plainWrite/) ? "plain first" : "strict first"
	next
}
/rows\/s/ {
	for (i = 1; i <= NF; i++) {
		if ($i == "rows/s") rate[r, $1] = $(i-1)
		if ($i ~ /^client=/) { sub(/client=/, "", $i); cli[r, $1] = $i; cpu = 1 }
		if ($i ~ /^server=/) { sub(/server=/, "", $i); srv[r, $1] = $i }
	}
}
function ratio(a, b) { return (b > 0) ? sprintf("%.2f", a / b) : "-" }
END {
	printf "\n| batch | threads | order | UTC | load |"
	for (i = 1; i <= n; i++) printf " %s |", name[i]
	print " insert-only/dual | mutable/plain | verify-on-read/plain | verify-on-read/dual | dual/plain |"
	printf "|---:|---:|---|---|---:|"
	for (i = 1; i <= n + 5; i++) printf "---:|"
	print ""
	for (k = 1; k <= r; k++) {
		printf "| %s | %s | %s | %s | %s |", batch[k], threads[k], order[k], utc[k], load[k]
		for (i = 1; i <= n; i++) printf " %s |", rate[k, w[i]]
		printf " %s | %s | %s | %s | %s |\n", ratio(rate[k, "indexedWrite"], rate[k, "dualWrite"]), ratio(rate[k, "mutableWrite"], rate[k, "plainWrite"]),
			ratio(rate[k, "verifyOnReadWrite"], rate[k, "plainWrite"]), ratio(rate[k, "verifyOnReadWrite"], rate[k, "dualWrite"]), ratio(rate[k, "dualWrite"], rate[k, "plainWrite"])
	}
	if (!cpu) exit
	printf "\nCPU µs per record, client / server:\n\n| batch | threads | order |"
	for (i = 1; i <= n; i++) printf " %s |", name[i]
	print ""
	printf "|---:|---:|---|"
	for (i = 1; i <= n; i++) printf "---:|"
	print ""
	for (k = 1; k <= r; k++) {
		printf "| %s | %s | %s |", batch[k], threads[k], order[k]
		for (i = 1; i <= n; i++) printf " %s / %s |", cli[k, w[i]], (srv[k, w[i]] == "" ? "-" : srv[k, w[i]])
		print ""
	}
}' "$out"
