#!/usr/bin/env bash
# bench-secure.sh (make bench-secure): what Kerberos and TLS cost, on one
# server in one run (issue 19, README "Secure clusters"). It starts the
# secured local HBase of tools/secure-hbase.sh with HBKIT_SECURE_OPEN=1 and
# TLS, so the same region server also takes SIMPLE clients, every quality
# of protection and plain TCP beside TLS, then runs `hbkit bench` as five
# clients in turn:
#
#   plain     SIMPLE over plain TCP (what hbkit is without security)
#   krb-auth  Kerberos, hbase.rpc.protection=authentication
#   krb-conf  Kerberos, privacy (SASL auth-conf: every frame encrypted)
#   tls       SIMPLE over TLS
#   tls-krb   Kerberos (authentication) over TLS
#
# after one uncounted warm-up run, in one order and then in the reverse
# one, ROUNDS times (default 4), and
# prints every run's rows/s and each client's ratio to plain of the same
# round. ROWS (default 10000 per thread), THREADS (default 2) and
# WORKLOADS (default sequentialWrite,randomRead,scan) choose the bench.
# The secured HBase is stopped at exit; the plain one is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${ROWS:-10000}"
threads="${THREADS:-2}"
workloads="${WORKLOADS:-sequentialWrite,randomRead,scan}"
rounds="${ROUNDS:-4}"
bin="$(mktemp -d)/hbkit"
out="$(dirname "$bin")/runs.tsv"
cleanup() {
	tools/secure-hbase.sh down || true
	rm -rf "$(dirname "$bin")"
}
trap cleanup EXIT
go build -o "$bin" ./cmd/hbkit
HBKIT_SECURE_OPEN=1 HBKIT_SECURE_TLS=1 HBKIT_RPC_PROTECTION=privacy tools/secure-hbase.sh up
set -a
. "$(tools/secure-hbase.sh env)"
set +a

# run CLIENT: one hbkit bench as CLIENT, its rows/s per workload appended
# to $out as "round client workload rows/s".
run() {
	local client=$1 env=(env -u HBKIT_KEYTAB -u HBKIT_CCACHE -u HBKIT_TLS_CA -u HBKIT_TLS_CERT -u HBKIT_TLS_KEY -u HBKIT_TLS_SERVER_NAME)
	case $client in
	plain) ;;
	krb-auth) env+=(HBKIT_KEYTAB="$HBKIT_KEYTAB" HBKIT_RPC_PROTECTION=authentication) ;;
	krb-conf) env+=(HBKIT_KEYTAB="$HBKIT_KEYTAB" HBKIT_RPC_PROTECTION=privacy) ;;
	tls) env+=(HBKIT_TLS_CA="$HBKIT_TLS_CA") ;;
	tls-krb) env+=(HBKIT_KEYTAB="$HBKIT_KEYTAB" HBKIT_RPC_PROTECTION=authentication HBKIT_TLS_CA="$HBKIT_TLS_CA") ;;
	esac
	echo "== round $round $client $(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)" >&2
	"${env[@]}" "$bin" bench --zk "$HBKIT_ZK" --rows "$rows" --threads "$threads" --workloads "$workloads" --fresh --json |
		jq -r --arg r "$round" --arg c "$client" '.results[] | "\($r)\t\($c)\t\(.workload)\t\(.rows_per_sec | floor)"' >>"$out"
}

# A fresh server runs its first seconds at a fraction of its speed (JIT,
# block cache): one plain run warms it up, and is not counted.
round=0
run plain
: >"$out"

clients=(plain krb-auth krb-conf tls tls-krb)
for ((round = 1; round <= rounds; round++)); do
	if ((round % 2)); then order=("${clients[@]}"); else order=(tls-krb tls krb-conf krb-auth plain); fi
	for c in "${order[@]}"; do run "$c"; done
done

echo
echo "rows/s of every run (rows=$rows per thread, threads=$threads), and ratio to plain in the same round:"
printf 'round\tclient\tworkload\trows/s\tvs plain\n'
awk -F'\t' 'NR == FNR { if ($2 == "plain") base[$1 FS $3] = $4; next }
	{ printf "%s\t%s\t%s\t%s\t%.2f\n", $1, $2, $3, $4, $4 / base[$1 FS $3] }' "$out" "$out" | sort -k3,3 -k2,2 -k1,1n
