#!/usr/bin/env bash
# check.sh checks the Kerberized local HBase of tools/secure-hbase.sh with
# HBase's own Java client (KerberosCheck.java, compiled against the
# launcher's classpath): a client logged in from the client keytab writes
# and reads a row; a SIMPLE client is refused; when the HBase speaks TLS
# (HBKIT_SECURE_TLS=1) the clients do too, and a client without TLS is
# refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
env_file=$(tools/secure-hbase.sh env)
[ -f "$env_file" ] || { echo "check.sh: no $env_file: run tools/secure-hbase.sh up first" >&2; exit 1; }
set -a
. "$env_file"
set +a
if ! command -v javac >/dev/null; then
	# The JRE that runs HBase has no compiler.
	echo "check.sh: apt-get install openjdk-17-jdk-headless (for javac)" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null
fi
[ -x bin/hbase-local ] || go build -o bin/hbase-local ./tools/hbase
cp=$(bin/hbase-local classpath)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -nowarn -d "$out" -cp "$cp" tools/secure/KerberosCheck.java
run() {
	java -Djava.security.krb5.conf="$HBKIT_KRB5_CONF" -Dlog4j2.level=ERROR -Dlog4j2.rootLogger.level=ERROR \
		--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
		--add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED \
		-cp "$out:$cp" KerberosCheck "$@" 2>/dev/null
}
echo "== Kerberos client (keytab $HBKIT_KEYTAB, protection $HBKIT_RPC_PROTECTION)"
run
echo "== SIMPLE client"
run simple
if [ -n "${HBKIT_TLS_CA:-}" ]; then
	echo "== Kerberos client without TLS"
	run notls
fi
