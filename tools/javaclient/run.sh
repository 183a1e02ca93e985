#!/usr/bin/env bash
# run.sh builds SeedWriter (tools/javaclient) with Maven and runs it against
# the HBase at HBKIT_ZK (default 127.0.0.1:2181): seed-000 SMS messages
# written with HBase's Java client and plain Puts.
#
#   tools/javaclient/run.sh --data TABLE --index TABLE --count N \
#       [--stale K] [--orphan K] [--missing K] [--batch B]
#
# The tables must exist (hbkit's SMS schema: family cf). It prints one line
# per message written (see SeedWriter.java).
#
#   tools/javaclient/run.sh --class SeedKeysWriter --hash TABLE \
#       --partition TABLE --partitions P --index TABLE --count N \
#       [--generator TABLE]
#
# runs another program of the module instead: SeedKeysWriter writes rows
# keyed as seeds 003 and 001 key them (see SeedKeysWriter.java). The first
# run resolves
# hbase-client from Maven Central into the local Maven repository (~/.m2,
# or $HBKIT_M2); classes and classpath are kept in
# ${HBKIT_CACHE:-~/.cache/hbkit}, keyed by the sources.
set -euo pipefail
main=SeedWriter
if [ "${1:-}" = "--class" ]; then
	main=${2:?run.sh: --class needs a class name}
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)

command -v mvn >/dev/null || { echo "run.sh: needs Maven (mvn)" >&2; exit 1; }
command -v java >/dev/null || { echo "run.sh: needs java" >&2; exit 1; }

. "$here/../java-common.sh"
sum=$( (cat "$here/pom.xml" "$here"/src/main/java/io/hbkit/javaclient/*.java; echo "${HBKIT_M2:-}") | sha256sum | cut -c1-16)
build="$cache/javaclient-$sum"
cpfile="$build/classpath.txt"
if [ ! -s "$cpfile" ] || [ ! -d "$build/classes" ]; then
	echo "run.sh: building tools/javaclient with Maven (first run per source change)..." >&2
	mvn -B -q -f "$here/pom.xml" "-Dhbkit.build=$build" compile dependency:build-classpath \
		-Dmdep.outputFile="$cpfile.tmp" -Dmdep.includeScope=runtime "${m2args[@]}" >&2
	mv "$cpfile.tmp" "$cpfile"
fi

conf=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-javaclient-conf.XXXXXX")
trap 'rm -rf "$conf"' EXIT
cat >"$conf/log4j2.properties" <<'EOC'
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
EOC

java "${jdk17[@]}" -Xmx512m -Dlog4j2.configurationFile="$conf/log4j2.properties" \
	-cp "$build/classes:$(cat "$cpfile")" "io.hbkit.javaclient.$main" --zk "${HBKIT_ZK:-127.0.0.1:2181}" "$@"
