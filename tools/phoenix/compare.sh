#!/usr/bin/env bash
# compare.sh is make bench-phoenix: Apache Phoenix 5.2.1 and hbkit side by
# side on one HBase. It starts a private HBase with Phoenix loaded (its own
# state directory and ports, below; the shared local HBase is never touched),
# writes the SMS messages of hbkit's layer workloads once to a file, and for
# every batch size, thread count and table kind runs, alternating which goes
# first:
#
#   - Phoenix (tools/phoenix/run.sh): the messages UPSERTed through the JDBC
#     driver into a table with a global index on (account, day), mutable or
#     IMMUTABLE_ROWS=true, committing every BATCH; then QUERIES queries of
#     one account's messages on one day through the index;
#   - hbkit: `hbkit bench` writing the same messages (same --seed and
#     --start) with the workload of that kind, then accountDayQuery, the same
#     queries through dao.SMSRepo.MessagesOfAccountOnDate.
#
# Each round starts from empty tables and drops them at its end. The table
# goes to stdout and to bench/results/phoenix.md (phoenix-MODE.md with
# HBKIT_MUTABLE_MODE=MODE); HBase is stopped at exit.
#
# Settings (environment):
#   PHOENIX_ROWS=20000  messages per client thread
#   THREADS="1 4"       client threads of the writes, one round each
#   BATCHES=100         records per call (per commit), one round each
#   QUERIES=200         measured index queries per side and round, 1 thread
#   PHOENIX_WARMUP=20   unmeasured queries Phoenix runs first (its JIT);
#                       both sides leave the first measured one out
#   SEED=1              seed of the messages
#   WARMUP_ROWS=2000    a first, unmeasured round of each side with this many
#                       messages (at most PHOENIX_ROWS), so that neither
#                       meets the fresh server's cold code (and Phoenix's
#                       first connection, which creates its SYSTEM tables)
#                       in a measured round; 0: none
#   HBKIT_MUTABLE_WORKLOAD=indexedWrite    hbkit's write for the mutable kind
#   HBKIT_IMMUTABLE_WORKLOAD=indexedWrite  and for the immutable kind (it
#                       must write indexedWrite's tables and records, which
#                       accountDayQuery reads and the file holds)
#   HBKIT_MUTABLE_MODE=mutable             the write mode of hbkit's store
#   HBKIT_IMMUTABLE_MODE=                  for each kind (hbkit bench
#                       --write-mode); empty: the SMS schema's own,
#                       insert-only, which is what IMMUTABLE_ROWS declares
#   OUT=DIR             keep the records, logs and JSON reports in DIR
#                       (default: a temporary directory, removed on success)
#   HBKIT_PHOENIX_STATE, HBKIT_PHOENIX_ZK_PORT (23181),
#   HBKIT_PHOENIX_MASTER_PORT (23000), HBKIT_PHOENIX_RS_PORT (23020)
#                       the private HBase's state directory
#                       ($HBKIT_CACHE/phoenix-state) and ports
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${PHOENIX_ROWS:-20000}
THREADS=${THREADS:-1 4}
BATCHES=${BATCHES:-100}
QUERIES=${QUERIES:-200}
WARMUP=${PHOENIX_WARMUP:-20}
SEED=${SEED:-1}
WARMUP_ROWS=${WARMUP_ROWS:-2000}
[ "$WARMUP_ROWS" -gt "$ROWS" ] && WARMUP_ROWS=$ROWS
declare -A hbkit_workload=(
	[mutable]=${HBKIT_MUTABLE_WORKLOAD:-indexedWrite}
	[immutable]=${HBKIT_IMMUTABLE_WORKLOAD:-indexedWrite}
)
declare -A hbkit_mode=(
	[mutable]=${HBKIT_MUTABLE_MODE-mutable}
	[immutable]=${HBKIT_IMMUTABLE_MODE-}
)
# mode_flag KIND: the --write-mode flag of hbkit's store for that kind.
mode_flag() { [ -n "${hbkit_mode[$1]}" ] && echo "--write-mode=${hbkit_mode[$1]}" || true; }
# The settings the command line of the table names (other than the
# defaults'), and the table's file: bench/results/phoenix.md with the
# default modes, phoenix-MODE.md with another mode for the mutable kind
# (phoenix-schema.md with the schema's own, HBKIT_MUTABLE_MODE=).
env_shown=
for v in HBKIT_MUTABLE_WORKLOAD HBKIT_IMMUTABLE_WORKLOAD HBKIT_MUTABLE_MODE HBKIT_IMMUTABLE_MODE; do
	[ -n "${!v+x}" ] && env_shown+="$v=${!v} "
done
result=bench/results/phoenix.md
[ "${hbkit_mode[mutable]}" != mutable ] && result=bench/results/phoenix-${hbkit_mode[mutable]:-schema}.md

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
export HBKIT_STATE="${HBKIT_PHOENIX_STATE:-$cache/phoenix-state}"
export HBKIT_ZK_PORT="${HBKIT_PHOENIX_ZK_PORT:-23181}"
export HBKIT_MASTER_PORT="${HBKIT_PHOENIX_MASTER_PORT:-23000}"
export HBKIT_RS_PORT="${HBKIT_PHOENIX_RS_PORT:-23020}"
export HBKIT_PHOENIX=1 RS=1

keep=${OUT:+1}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hbkit-bench-phoenix.XXXXXX")}
mkdir -p "$out" bench/results
rm -f "$out"/*.json "$out"/*.log

launcher=bin/hbase-local
hbkit="$out/hbkit"
go build -o "$launcher" ./tools/hbase
go build -o "$hbkit" ./cmd/hbkit

started=
cleanup() {
	local rc=$?
	set +e
	[ -n "$started" ] && "$launcher" down >&2
	if [ "$rc" = 0 ] && [ -z "$keep" ]; then
		rm -rf "$out"
	else
		echo "compare.sh: records, logs and reports in $out" >&2
	fi
}
trap cleanup EXIT

t0=$(date +%s)
echo "== a private HBase with Phoenix ($HBKIT_STATE, ZooKeeper port $HBKIT_ZK_PORT)" >&2
started=1
"$launcher" down >&2 # one left running by an interrupted run
"$launcher" up -fresh >&2
HBKIT_ZK=$("$launcher" zk)
export HBKIT_ZK

# Every round writes the same messages, sent from this time on (whole
# seconds; the writes come later, so no message is sent in the future).
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)

phoenix_round() { # kind batch threads records
	local kind=$1 b=$2 t=$3 rec=$4 flag=()
	[ "$kind" = immutable ] && flag=(--immutable)
	local s0=$SECONDS
	if ! tools/phoenix/run.sh --table "SMS_${kind^^}" "${flag[@]}" --records "$rec" \
		--threads "$t" --batch "$b" --queries "$QUERIES" --warmup "$WARMUP" --drop \
		--out "$out/phoenix-$kind-b$b-t$t" >"$out/phoenix-$kind-b$b-t$t.log" 2>&1; then
		tail -30 "$out/phoenix-$kind-b$b-t$t.log" >&2
		return 1
	fi
	echo "-- Phoenix: $kind, batch $b, $t thread(s): $((SECONDS - s0))s" >&2
}

hbkit_round() { # kind batch threads
	local kind=$1 b=$2 t=$3 w=${hbkit_workload[$1]}
	local s0=$SECONDS
	"$hbkit" bench --drop-tables 2>/dev/null
	"$hbkit" bench --rows "$ROWS" --threads "$t" --batch "$b" --seed "$SEED" --start "$start" \
		--workloads "$w" $(mode_flag "$kind") --json >"$out/hbkit-$kind-b$b-t$t-write.json"
	"$hbkit" bench --rows "$QUERIES" --threads 1 --start "$start" \
		--workloads accountDayQuery $(mode_flag "$kind") --json >"$out/hbkit-$kind-b$b-t$t-query.json"
	"$hbkit" bench --drop-tables 2>/dev/null
	echo "-- hbkit: $w ${hbkit_mode[$kind]:-insert-only} ($kind), batch $b, $t thread(s): $((SECONDS - s0))s" >&2
}

if [ "$WARMUP_ROWS" -gt 0 ]; then
	s0=$SECONDS
	rec="$out/records-warmup.tsv"
	"$hbkit" bench --records "$rec" --rows "$WARMUP_ROWS" --threads 1 --seed "$SEED" --start "$start"
	tools/phoenix/run.sh --table SMS_WARMUP --records "$rec" --batch 100 --queries 20 --drop \
		--out "$out/warmup-phoenix" >"$out/warmup-phoenix.log" 2>&1 ||
		{ tail -30 "$out/warmup-phoenix.log" >&2; exit 1; }
	for kind in mutable immutable; do
		"$hbkit" bench --drop-tables 2>/dev/null
		"$hbkit" bench --rows "$WARMUP_ROWS" --seed "$SEED" --start "$start" \
			--workloads "${hbkit_workload[$kind]}" $(mode_flag "$kind") >>"$out/warmup-hbkit.log"
		"$hbkit" bench --rows 20 --start "$start" --workloads accountDayQuery $(mode_flag "$kind") >>"$out/warmup-hbkit.log"
	done
	"$hbkit" bench --drop-tables 2>/dev/null
	rm -f "$rec"
	echo "-- warm-up, both sides, $WARMUP_ROWS messages (not measured): $((SECONDS - s0))s" >&2
fi

round=0
for t in $THREADS; do
	rec="$out/records-t$t.tsv"
	"$hbkit" bench --records "$rec" --rows "$ROWS" --threads "$t" --seed "$SEED" --start "$start"
	for b in $BATCHES; do
		for kind in mutable immutable; do
			if [ $((round % 2)) = 0 ]; then
				phoenix_round "$kind" "$b" "$t" "$rec"
				hbkit_round "$kind" "$b" "$t"
			else
				hbkit_round "$kind" "$b" "$t"
				phoenix_round "$kind" "$b" "$t" "$rec"
			fi
			round=$((round + 1))
		done
	done
	rm -f "$rec"
done
secs=$(($(date +%s) - t0))

{
	echo "Command: \`${env_shown}make bench-phoenix\` (PHOENIX_ROWS=$ROWS THREADS=\"$THREADS\" BATCHES=\"$BATCHES\" QUERIES=$QUERIES PHOENIX_WARMUP=$WARMUP SEED=$SEED), $start, ${secs}s."
	echo "One private HBase 2.6.4 (one region server, local) with Apache Phoenix 5.2.1 loaded; Phoenix's JDBC driver and \`hbkit bench\` take turns on it;"
	echo "machine: $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg), shared with other work."
	echo
	go run ./tools/phoenix/table "$out"
} | tee "$result"
