#!/usr/bin/env bash
# run.sh runs HBase's PerformanceEvaluation (the Java client's benchmark,
# "hbase pe") against the HBase at HBKIT_ZK, one workload after another.
#
#   tools/pe/run.sh [--rows N] [--threads T] [--out DIR] [--presplit R] WORKLOAD...
#
#   --rows N      rows per client thread (PE's --rows; default 20000)
#   --threads T   client threads (PE's <nclients>, with --nomapred; default 1)
#   --presplit R  pre-split TestTable into R regions (PE's --presplit; default
#                 0: one region, PE's default)
#   --out DIR     keep each run's output in DIR/pe-<workload>-<T>.log
#                 (default: a temporary directory, printed at the end)
#
# WORKLOAD is a PE command: sequentialWrite, randomWrite, randomRead, scan,
# scanRange100, ... Everything else is PE's default: table TestTable, one
# family (info0), qualifier 0, 1,000-byte values, a 2 MB BufferedMutator
# for writes, caching 30 for scans. `hbkit bench --compare DIR` reads the
# logs.
#
# PerformanceEvaluation comes from Maven Central (tools/pe/pom.xml): the
# first run resolves it into the local Maven repository (~/.m2, or
# $HBKIT_M2) and caches the classpath in ${HBKIT_CACHE:-~/.cache/hbkit}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

rows=20000
threads=1
presplit=0
out=""
workloads=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rows) rows=$2; shift 2 ;;
	--rows=*) rows=${1#*=}; shift ;;
	--threads) threads=$2; shift 2 ;;
	--threads=*) threads=${1#*=}; shift ;;
	--presplit) presplit=$2; shift 2 ;;
	--presplit=*) presplit=${1#*=}; shift ;;
	--out) out=$2; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown flag $1" >&2; exit 2 ;;
	*) workloads+=("$1"); shift ;;
	esac
done
if [ ${#workloads[@]} -eq 0 ]; then
	echo "run.sh: name at least one workload (sequentialWrite, randomRead, ...)" >&2
	exit 2
fi
zk=${HBKIT_ZK:-127.0.0.1:2181}
zk=${zk%%,*} # PE's configuration takes one host and one client port
zkhost=${zk%:*}
zkport=${zk##*:}
[ "$zkhost" = "$zk" ] && zkport=2181

. "$here/../java-common.sh"
resolve_classpath "$here/pom.xml" pe PerformanceEvaluation

# A configuration directory: hbase-site.xml for the cluster, and a log4j2
# configuration that prints PE's own report lines bare on stdout and keeps
# the rest of the client quiet.
conf=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-pe-conf.XXXXXX")
trap 'rm -rf "$conf"' EXIT
cat >"$conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>$zkhost</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$zkport</value></property>
</configuration>
EOF
cat >"$conf/log4j2.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.target = SYSTEM_OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = %m%n
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
logger.pe.name = org.apache.hadoop.hbase.PerformanceEvaluation
logger.pe.level = INFO
logger.pe.additivity = false
logger.pe.appenderRef.out.ref = OUT
EOF

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-pe.XXXXXX")
fi
mkdir -p "$out"
for w in "${workloads[@]}"; do
	log="$out/pe-$w-$threads.log"
	echo "run.sh: PerformanceEvaluation --nomapred --rows=$rows --presplit=$presplit $w $threads" >&2
	# PE's options must precede the command: it sizes the run when it reads it.
	if ! java "${jdk17[@]}" -Xmx1g \
		-Dlog4j2.configurationFile="$conf/log4j2.properties" \
		-cp "$conf:$classpath" org.apache.hadoop.hbase.PerformanceEvaluation \
		--nomapred --rows="$rows" --presplit="$presplit" "$w" "$threads" >"$log" 2>"$log.err"; then
		echo "run.sh: $w failed; see $log.err" >&2
		tail -20 "$log.err" >&2
		exit 1
	fi
	if ! grep -q 'Avg TPS/QPS' "$log"; then
		echo "run.sh: $w printed no summary; see $log and $log.err" >&2
		tail -20 "$log.err" >&2
		exit 1
	fi
	grep -m3 -E 'Avg TPS/QPS|Latency \(us\)' "$log" >&2
done
echo "$out"
