# java-common.sh is sourced by the scripts that run Java programs from
# Maven Central (tools/pe/run.sh, tools/phoenix/run.sh,
# tools/javaclient/run.sh): the cache directory, the local Maven
# repository's flags, the classpath resolved once per pom.xml, and the JVM
# flags HBase's bin/hbase adds on JDK 11+ (as tools/hbase/config.go).

cache=${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}
mkdir -p "$cache"
m2args=()
[ -n "${HBKIT_M2:-}" ] && m2args=("-Dmaven.repo.local=$HBKIT_M2")

# resolve_classpath POM NAME WHAT sets classpath to the runtime classpath of
# POM, resolved with Maven on the first run (WHAT says what is fetched) and
# cached as $cache/NAME-classpath-<hash>.txt, resolved again when POM, the
# local repository or a jar on it changes.
resolve_classpath() {
	local pom=$1 name=$2 what=$3 sum cpfile
	sum=$( (cat "$pom"; echo "${HBKIT_M2:-}") | sha256sum | cut -c1-16)
	cpfile="$cache/$name-classpath-$sum.txt"
	if ! classpath_ok "$cpfile"; then
		command -v mvn >/dev/null || { echo "$0: needs Maven (mvn) to fetch $what" >&2; exit 1; }
		echo "$0: resolving $what from Maven Central (first run only)..." >&2
		mvn -B -q -f "$pom" dependency:build-classpath \
			-Dmdep.outputFile="$cpfile.tmp" -Dmdep.includeScope=runtime "${m2args[@]}" >&2
		mv "$cpfile.tmp" "$cpfile"
	fi
	classpath=$(cat "$cpfile")
}

# classpath_ok FILE reports whether FILE lists a classpath whose jars all
# exist.
classpath_ok() {
	[ -s "$1" ] || return 1
	local IFS=: j
	for j in $(cat "$1"); do [ -e "$j" ] || return 1; done
}

jdk17=(
	-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
	--add-modules jdk.unsupported
	--add-opens java.base/java.io=ALL-UNNAMED
	--add-opens java.base/java.nio=ALL-UNNAMED
	--add-opens java.base/sun.nio.ch=ALL-UNNAMED
	--add-opens java.base/java.lang=ALL-UNNAMED
	--add-opens java.base/jdk.internal.ref=ALL-UNNAMED
	--add-opens java.base/java.lang.reflect=ALL-UNNAMED
	--add-opens java.base/java.util=ALL-UNNAMED
	--add-opens java.base/java.util.concurrent=ALL-UNNAMED
	--add-exports java.base/jdk.internal.misc=ALL-UNNAMED
	--add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
	--add-exports java.base/sun.net.dns=ALL-UNNAMED
	--add-exports java.base/sun.net.util=ALL-UNNAMED
)
