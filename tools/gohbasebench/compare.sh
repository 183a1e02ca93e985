#!/usr/bin/env bash
# compare.sh runs tools/gohbasebench with hbkit's native client and with
# gohbase, as separate processes taking turns (hbkit, gohbase, gohbase with
# a short flush interval; then gohbase, gohbase with the short flush, hbkit;
# ...; the scans also with hbkit's Scan.ReuseMemory), on the HBase at
# HBKIT_ZK, and prints
# a markdown table of hbkit/gohbase ratios (every run's and the median),
# also saved to bench/results/gohbase.md. It is what `make bench-gohbase`
# runs (through tools/with-hbase.sh).
#
# Settings (environment):
#   ROWS=20000          rows of 1 KB in the read table (prepared once)
#   RUNS=2              runs of each side per cell
#   GOROUTINES="1 4 32" concurrent callers, one client per process
#   WORKLOADS="put get batch scan100 fullscan"
#   DURATION=2s         length of each run (fullscan: at least one scan);
#                       each cell (workload and goroutines) starts with one
#                       uncounted run (warmup.jsonl in OUT)
#   SHORT_FLUSH=1ms     gohbase's short flush interval (its default is 20ms)
#   GOHBASE_SRC=DIR     build gohbase from DIR instead of
#                       ../shared/third_party/gohbase
#   OUT=DIR             keep the JSON lines and logs in DIR
#   TABLE_PREFIX=P      name the tables P<table> (e.g. scan_ on a shared HBase)
#   HBASE_PID=PID       the HBase JVM whose CPU time each run reports
#                       (server_cpu_s); by default the local HBase the
#                       launcher started, when HBKIT_ZK is its ZooKeeper
#
# The tables (gohbasebench_<pid>_<time> and ..._w) are dropped at the end,
# also on failure or interrupt.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)

: "${HBKIT_ZK:?HBKIT_ZK must be set (make bench-gohbase sets it)}"
ROWS=${ROWS:-20000}
RUNS=${RUNS:-2}
GOROUTINES=${GOROUTINES:-1 4 32}
WORKLOADS=${WORKLOADS:-put get batch scan100 fullscan}
DURATION=${DURATION:-2s}
SHORT_FLUSH=${SHORT_FLUSH:-1ms}
GO=${GO:-go}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hbkit-bench-gohbase.XXXXXX")}
mkdir -p "$out" "$root/bench/results"
bin="$out/gohbasebench"
jsonl="$out/runs.jsonl"
: >"$jsonl"

# Build; GOHBASE_SRC as in tools/gohbase-go.sh: a temporary copy of go.mod
# with the replace pointing there (the committed go.mod stays as it is).
if [ -n "${GOHBASE_SRC:-}" ]; then
	src=$(cd "$GOHBASE_SRC" && pwd)
	[ -f "$src/go.mod" ] || { echo "compare: GOHBASE_SRC=$GOHBASE_SRC has no go.mod" >&2; exit 1; }
	cp go.mod "$out/go.mod"
	cp go.sum "$out/go.sum"
	"$GO" mod edit -modfile="$out/go.mod" -replace "github.com/tsuna/gohbase=$src"
	echo "compare: building gohbase from $src" >&2
	"$GO" build -modfile="$out/go.mod" -mod=mod -o "$bin" .
else
	src=$(cd ../../../shared/third_party/gohbase && pwd)
	"$GO" build -o "$bin" .
fi
gohbase_rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null ||
	{ [ -z "${GOHBASE_SRC:-}" ] && echo "cfe2cb9 (../shared/third_party)"; } || echo "from $src")

# The server's CPU is measured when its JVM runs here: HBASE_PID, or the pid
# a launcher state directory records for the ZooKeeper at HBKIT_ZK.
. "$root/tools/hbase-pid.sh"
[ -n "${HBASE_PID:-}" ] && echo "compare: measuring the CPU of the HBase JVM, pid $HBASE_PID" >&2

table="${TABLE_PREFIX:-}gohbasebench_$$_$(date +%s)"
common=(--zk "$HBKIT_ZK" --table "$table" --rows "$ROWS" --server-pid "${HBASE_PID:-0}")
trap '"$bin" "${common[@]}" --teardown || echo "compare: could not drop $table" >&2' EXIT

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s)
echo "compare: preparing $table ($ROWS rows of 1 KB)" >&2
"$bin" "${common[@]}" --setup

# settle W: before a run of a write workload, wait until the server has
# flushed what earlier runs wrote (gohbasebench --settle): a backlog of
# memstore left by one side's run blocks writes in the next side's.
settle() {
	case $1 in
	put | batch) "$bin" "${common[@]}" --settle 2>>"$out/stderr.log" ||
		echo "compare: settle failed before a $1 run (see $out/stderr.log)" >&2 ;;
	esac
}

base_sides=("--client hbkit" "--client gohbase" "--client gohbase --flush-interval $SHORT_FLUSH")
cell=0
for w in $WORKLOADS; do
	sides=("${base_sides[@]}")
	case $w in
	# Scans also run with hbkit's Scan.ReuseMemory, in the same rounds.
	scan100 | fullscan) sides+=("--client hbkit --reuse") ;;
	esac
	for g in $GOROUTINES; do
		# One uncounted run first (each side in turn starts a cell's
		# warm-up): the server's first run of a new workload goes slower
		# while it compiles that workload's paths, and the side running
		# it lost up to half its rate.
		k=$((cell % ${#sides[@]}))
		cell=$((cell + 1))
		settle "$w"
		# shellcheck disable=SC2086 # a list of flags
		"$bin" "${common[@]}" ${sides[$k]} --workload "$w" --goroutines "$g" --duration "$DURATION" >>"$out/warmup.jsonl" 2>>"$out/stderr.log" ||
			echo "compare: warm-up failed: ${sides[$k]} $w $g (see $out/stderr.log)" >&2
		for run in $(seq "$RUNS"); do
			# Each run starts with the next side (hbkit, gohbase, gohbase
			# with the short flush; then gohbase, ...): the first run after
			# a change of workload meets a server still adapting to it, and
			# no side should always be the one to pay for that.
			for k in "${!sides[@]}"; do
				s=${sides[$(((k + run - 1) % ${#sides[@]}))]}
				settle "$w"
				# shellcheck disable=SC2086 # $s is a list of flags
				line=$("$bin" "${common[@]}" $s --workload "$w" --goroutines "$g" --duration "$DURATION" 2>>"$out/stderr.log") ||
					echo "compare: run failed: $s $w $g (see $out/stderr.log)" >&2
				echo "$line" | tee -a "$jsonl" >&2
			done
		done
	done
done
secs=$(( $(date +%s) - t0 ))

{
	echo "Command: \`make bench-gohbase\` (ROWS=$ROWS RUNS=$RUNS GOROUTINES=\"$GOROUTINES\" DURATION=$DURATION SHORT_FLUSH=$SHORT_FLUSH), $started, ${secs}s."
	echo "hbkit (native client, defaults) vs gohbase $gohbase_rev (defaults: flush interval 20ms; and flush interval $SHORT_FLUSH);"
	echo "each run a separate process, the sides taking turns (each round starts with the next side) after one uncounted warm-up run per row, one client per process shared by its goroutines;"
	echo "throughput in ops/s (fullscan: rows/s); batch = 100 Puts (hbkit Batch, gohbase SendBatch); ratio > 1: hbkit faster;"
	echo "before each put and batch run, the write table's memstore is left to flush below 128 MB (gohbasebench --settle)."
	echo "HBase at $HBKIT_ZK (one region server, local, shared with other work; tables of one region);"
	echo "machine: $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	"$bin" --report "$jsonl"
} | tee "$root/bench/results/gohbase.md"
echo "runs and logs: $out" >&2
