#!/usr/bin/env bash
# compare.sh runs HBase's PerformanceEvaluation (Java client) and
# `hbkit bench` (native Go client) on the HBase at HBKIT_ZK, with the same
# workloads, rows and threads, and prints a table of hbkit/Java ratios. It
# is what `make bench-compare` runs (through tools/with-hbase.sh).
#
# Settings (environment):
#   ROWS=20000      rows per client for sequentialWrite, randomWrite,
#                   randomRead and scan
#   SCAN_ROWS=1000  scans per client for scanRange100 (each reads up to 100
#                   rows; its keys are drawn from SCAN_ROWS x threads rows)
#   THREADS="1 4"   client thread counts, one round each
#   LAYERS=1        also run hbkit's plainWrite, daoWrite, indexedWrite and dualWrite
#   PROFILE=0       1: CPU profiles of hbkit's runs in OUT/hbkit-<T>-*.prof
#                   (go tool pprof OUT/hbkit OUT/hbkit-1-pe.prof)
#   OUT=DIR         keep the logs and JSON reports in DIR (default: a
#                   temporary directory)
#
# For each thread count: drop TestTable, run PE's workloads (one JVM each,
# as `hbase pe` runs), drop TestTable again, run hbkit's. The table goes to
# stdout and to bench/results/latest.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${ROWS:-20000}
SCAN_ROWS=${SCAN_ROWS:-1000}
THREADS=${THREADS:-1 4}
LAYERS=${LAYERS:-1}
PROFILE=${PROFILE:-0}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hbkit-bench-compare.XXXXXX")}
mkdir -p "$out" bench/results
rm -f "$out"/pe-*.log "$out"/hbkit-*.json

hbkit="$out/hbkit"
go build -o "$hbkit" ./cmd/hbkit

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s)
prof() { [ "$PROFILE" = 1 ] && echo "--cpuprofile=$out/hbkit-$1.prof" || true; }
for t in $THREADS; do
	echo "== $t thread(s): Java PerformanceEvaluation" >&2
	"$hbkit" bench --drop-tables
	tools/pe/run.sh --rows "$ROWS" --threads "$t" --out "$out" sequentialWrite randomWrite randomRead scan >/dev/null
	tools/pe/run.sh --rows "$SCAN_ROWS" --threads "$t" --out "$out" scanRange100 >/dev/null

	echo "== $t thread(s): hbkit bench" >&2
	"$hbkit" bench --drop-tables
	"$hbkit" bench --rows "$ROWS" --threads "$t" --workloads sequentialWrite,randomWrite,randomRead,scan --json $(prof "$t-pe") >"$out/hbkit-$t-pe.json"
	"$hbkit" bench --rows "$SCAN_ROWS" --threads "$t" --workloads scanRange100 --json $(prof "$t-range") >"$out/hbkit-$t-range.json"
	if [ "$LAYERS" = 1 ]; then
		"$hbkit" bench --rows "$ROWS" --threads "$t" --workloads plainWrite,daoWrite,indexedWrite,dualWrite --json $(prof "$t-layers") >"$out/hbkit-$t-layers.json"
	fi
done
"$hbkit" bench --drop-tables
secs=$(( $(date +%s) - t0 ))

{
	echo "Command: \`make bench-compare\` (ROWS=$ROWS SCAN_ROWS=$SCAN_ROWS THREADS=\"$THREADS\"), $started, ${secs}s."
	echo "HBase 2.6.4 (one region server, local), Java client: PerformanceEvaluation of hbase-mapreduce 2.6.4 (--nomapred, PE defaults);"
	echo "machine: $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg), shared with other work."
	echo
	"$hbkit" bench --compare "$out"
} | tee bench/results/latest.md
echo "logs and reports: $out" >&2
