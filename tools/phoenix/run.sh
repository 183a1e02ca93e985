#!/usr/bin/env bash
# run.sh runs the Phoenix side of make bench-phoenix (Bench.java beside
# this script) against the HBase at HBKIT_ZK, which must have Phoenix's
# server side loaded (bin/hbase-local up -phoenix). Its arguments go to
# Bench; --url is filled in from HBKIT_ZK:
#
#   tools/phoenix/run.sh --table NAME --records FILE --out PREFIX
#       [--threads T] [--batch B] [--immutable]
#       [--queries N] [--query-threads Q] [--warmup W] [--explain] [--drop]
#
# FILE comes from `hbkit bench --records` (the messages hbkit's layer
# workloads write); see Bench.java for what is measured and how.
#
# Phoenix's JDBC driver and HBase's client come from Maven Central
# (tools/phoenix/pom.xml): the first run resolves them into the local Maven
# repository (~/.m2, or $HBKIT_M2) and caches the classpath in
# ${HBKIT_CACHE:-~/.cache/hbkit}; Bench.java is compiled with javac into
# that cache, again whenever it or the classpath changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

zk=${HBKIT_ZK:-127.0.0.1:2181}
zk=${zk%%,*}
. "$here/../java-common.sh"
resolve_classpath "$here/pom.xml" phoenix "Phoenix's JDBC driver"

# Bench.java, compiled into the cache.
src="$here/src/main/java/io/hbkit/phoenix/Bench.java"
classes="$cache/phoenix-classes-$( (cat "$src"; echo "$classpath") | sha256sum | cut -c1-16)"
if [ ! -e "$classes/io/hbkit/phoenix/Bench.class" ]; then
	command -v javac >/dev/null || { echo "run.sh: needs a JDK (javac) to compile Bench.java" >&2; exit 1; }
	rm -rf "$classes.tmp"
	javac -nowarn -d "$classes.tmp" -cp "$classpath" "$src"
	mv "$classes.tmp" "$classes"
fi

conf=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-phoenix-conf.XXXXXX")
trap 'rm -rf "$conf"' EXIT
cat >"$conf/log4j2.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
# Startup notes that say nothing about the run.
logger.metrics.name = org.apache.hadoop.metrics2
logger.metrics.level = ERROR
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = ERROR
logger.registry.name = org.apache.hadoop.hbase.client.ZKConnectionRegistry
logger.registry.level = ERROR
EOF

# Days are UTC days, as hbkit's index takes them.
java "${jdk17[@]}" -Xmx1g -Duser.timezone=UTC \
	-Dlog4j2.configurationFile="$conf/log4j2.properties" \
	-cp "$classes:$classpath" io.hbkit.phoenix.Bench --url "jdbc:phoenix:$zk" "$@"
