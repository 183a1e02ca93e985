#!/usr/bin/env bash
# jobs-bench.sh: the measurement of issue 37 in one command (docs/jobs-model.md).
# Against the HBase of HBKIT_ZK (default 127.0.0.1:2181; make hbase-up starts
# one), it writes JOBS_BENCH_ROWS SMS records (default 1000000, as 4 threads)
# with their index once (indexedWrite), then runs in one sequence:
#   plainWrite (the same rows as plain puts, the floor of a write),
#   scanAll (both tables read whole), and the job workloads of hbkit bench
#   (verifyJob, rebuildJob, copyJob) at --workers 1,
#   the same at --workers 2, and verify and rebuild through contrib/beam's
#   hbkit-beam on Prism (skipped when contrib/beam is absent).
# It prints one table of rows/s and the ratios (rebuild/plainWrite,
# copy/plainWrite, verify/scanAll) and saves it, with the raw lines, to
# bench/results/jobs-bench-ROWS.md. When the HBase JVM runs here
# (tools/hbase-pid.sh), every line gives the client's and the server's CPU
# per row. JOBS_BENCH_TABLE (default JobsBench) prefixes the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
zk="${HBKIT_ZK:-127.0.0.1:2181}"
rows="${JOBS_BENCH_ROWS:-1000000}"
prefix="${JOBS_BENCH_TABLE:-JobsBench}"
threads=4
per=$(( (rows + threads - 1) / threads ))
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/hbkit"
go build -o "$bin" ./cmd/hbkit
HBKIT_ZK=$zk . tools/hbase-pid.sh
cpu=()
if [ -n "${HBASE_PID:-}" ]; then
	cpu=(--server-pid "$HBASE_PID")
fi
jobsw=verifyJob,rebuildJob,copyJob
start=$(date +%s)
log="$tmp/runs.txt"
bench() { # one hbkit bench run, its result lines
	echo "== $* utc=$(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)"
	"$bin" bench --zk "$zk" --table "$prefix" --threads "$threads" --rows "$per" "${cpu[@]}" "$@" 2>&1 | grep -E 'rows/s|rror'
}
{
	bench --fresh --workloads indexedWrite,plainWrite,scanAll,$jobsw --workers 1
	bench --workloads $jobsw --workers 2
} | tee "$log"

# Beam on Prism: the same jobs through hbkit-beam, each from a reset job,
# timed as the whole hbkit-beam process (Prism's start included); CPU per
# row of that process and, when HBASE_PID is known, of the server.
jiffies() { [ -n "${HBASE_PID:-}" ] && awk '{print $14 + $15}' "/proc/$HBASE_PID/stat" || echo 0; }
if [ -d contrib/beam ]; then
	tools/beam-go.sh build -o "$tmp/hbkit-beam" ./cmd/hbkit-beam
	hz=$(getconf CLK_TCK)
	for kind in verify rebuild; do
		spec="{\"kind\":\"$kind\",\"table\":\"${prefix}_smsix\"}"
		"$bin" job reset --zk "$zk" --kind "$kind" --table "${prefix}_smsix" --yes >/dev/null
		echo "== beam $kind utc=$(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$log"
		t0=$(date +%s.%N) j0=$(jiffies)
		/usr/bin/time -f "%U %S" -o "$tmp/beam-$kind.cpu" "$tmp/hbkit-beam" --spec "$spec" --zk "$zk" \
			--report "$tmp/beam-$kind.json" >"$tmp/beam-$kind.log" 2>&1 || { tail -20 "$tmp/beam-$kind.log"; exit 1; }
		t1=$(date +%s.%N) j1=$(jiffies)
		n=$(sed -n 's/.*"rows": *\([0-9]*\).*/\1/p' "$tmp/beam-$kind.json" | head -1)
		awk -v k="$kind" -v n="$n" -v t0="$t0" -v t1="$t1" -v j="$((j1 - j0))" -v hz="$hz" -v pid="${HBASE_PID:-}" \
			'{ c = ($1 + $2) * 1e6 / n }
			END { printf "beam-%sJob workers=prism rows=%d %10.0f rows/s  %.1f s  (the whole hbkit-beam process)  cpu us/row: client=%.2f", k, n, n / (t1 - t0), t1 - t0, c
				if (pid != "") printf " server=%.2f", j * 1e6 / hz / n
				printf "\n" }' "$tmp/beam-$kind.cpu" | tee -a "$log"
	done
fi

# The table: rows/s of every line, then the ratios.
table="$tmp/table.md"
awk -v rows="$rows" -v secs="$(( $(date +%s) - start ))" '
/^== / { for (i = 2; i <= NF; i++) if ($i ~ /^--workers$/) w = $(i+1); if ($2 == "beam") w = "prism"; load = $NF; sub(/load=/, "", load); next }
/rows\/s/ {
	name = $1; sub(/^beam-/, "", name)
	for (i = 1; i <= NF; i++) {
		if ($i == "rows/s") rate = $(i-1)
		if ($i ~ /^client=/) { c = $i; sub(/client=/, "", c) }
		if ($i ~ /^server=/) { s = $i; sub(/server=/, "", s) }
	}
	key = name "@" ((name ~ /Job$/) ? w : "-")
	r[key] = rate; cl[key] = c; sv[key] = s; ld[key] = load; order[++n] = key; c = s = ""
}
function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
END {
	printf "jobs-bench: %d rows, %d s in all\n\n", rows, secs
	print "| workload | workers | rows/s | client CPU us/row | server CPU us/row | load |"
	print "|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) { k = order[i]; split(k, p, "@")
		printf "| %s | %s | %.0f | %s | %s | %s |\n", p[1], p[2], r[k], cl[k], sv[k], ld[k] }
	print ""
	print "| ratio | workers 1 | workers 2 | Prism |"
	print "|---|---|---|---|"
	printf "| rebuild / plainWrite | %s | %s | %s |\n", ratio(r["rebuildJob@1"], r["plainWrite@-"]), ratio(r["rebuildJob@2"], r["plainWrite@-"]), ratio(r["rebuildJob@prism"], r["plainWrite@-"])
	printf "| copy / plainWrite | %s | %s | %s |\n", ratio(r["copyJob@1"], r["plainWrite@-"]), ratio(r["copyJob@2"], r["plainWrite@-"]), ratio(r["copyJob@prism"], r["plainWrite@-"])
	printf "| verify / scanAll | %s | %s | %s |\n", ratio(r["verifyJob@1"], r["scanAll@-"]), ratio(r["verifyJob@2"], r["scanAll@-"]), ratio(r["verifyJob@prism"], r["scanAll@-"])
}' "$log" | tee "$table"
mkdir -p bench/results
out="bench/results/jobs-bench-$rows.md"
{ cat "$table"; printf '\nRaw lines (%s, HBKIT_ZK=%s):\n\n```\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$zk"; cat "$log"; printf '```\n'; } >"$out"
echo "jobs-bench: saved $out"
