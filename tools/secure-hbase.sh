#!/usr/bin/env bash
# secure-hbase.sh runs a Kerberized local HBase (issue 19): an MIT KDC of its
# own (Debian's krb5-kdc and krb5-admin-server, installed with apt-get when
# missing), a realm of its own (HBKIT.LOCAL), principals and keytabs for
# HBase and for a client user, and the local HBase (tools/hbase) started with
# hbase.security.authentication=kerberos. Everything lives under one
# directory ($HBKIT_CACHE/secure: kdc/, keytabs/, hbase/) and on ports of its
# own, so the plain local HBase (2181/16000/16020) is never touched.
#
#   tools/secure-hbase.sh up     KDC, principals, HBase; writes secure.env
#   tools/secure-hbase.sh down   stop HBase, then the KDC
#   tools/secure-hbase.sh env    print the path of secure.env
#
# Settings (environment): HBKIT_RPC_PROTECTION (authentication, integrity
# or privacy; default authentication), HBKIT_SECURE_ZK_PORT (2581),
# HBKIT_SECURE_MASTER_PORT (16400), HBKIT_SECURE_RS_PORT (16420),
# HBKIT_SECURE_KDC_PORT (18588), HBKIT_SECURE_DIR (the state directory,
# default $HBKIT_CACHE/secure), HBKIT_SECURE_ZK_SASL=1 (ZooKeeper
# authenticates HBase with SASL too, and HBase puts ACLs on its znodes;
# default 0: ZooKeeper without SASL), HBKIT_SECURE_TLS=1 (HBase 2.6's
# native RPC TLS on the master's and region servers' ports as well, plain
# clients refused: a CA, a server certificate for localhost/127.0.0.1 and
# a client certificate generated with openssl under tls/, plus a second
# CA the servers never used, for the wrong-CA tests; default 0),
# HBKIT_SECURE_OPEN=1 (the same servers also take SIMPLE clients, every
# quality of protection and plain TCP beside TLS: tools/bench-secure.sh
# measures what security costs on one server; default 0). `up` always
# starts from an empty HBase and a
# new realm; secure.env (shell syntax) holds the client's principal, keytab,
# krb5.conf, the server principal and HBKIT_ZK.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
dir="${HBKIT_SECURE_DIR:-$cache/secure}"
kdc="$dir/kdc"
realm=HBKIT.LOCAL
kdc_port="${HBKIT_SECURE_KDC_PORT:-18588}"
export HBKIT_STATE="$dir/hbase"
export HBKIT_ZK_PORT="${HBKIT_SECURE_ZK_PORT:-2581}"
export HBKIT_MASTER_PORT="${HBKIT_SECURE_MASTER_PORT:-16400}"
export HBKIT_RS_PORT="${HBKIT_SECURE_RS_PORT:-16420}"
export HBKIT_RPC_PROTECTION="${HBKIT_RPC_PROTECTION:-authentication}"
export KRB5_CONFIG="$dir/krb5.conf"
export KRB5_KDC_PROFILE="$kdc/kdc.conf"
server_principal="hbase/localhost@$realm"
client_principal="hbkit@$realm"
launcher=bin/hbase-local

install_krb5() {
	local need=()
	command -v krb5kdc >/dev/null || need+=(krb5-kdc)
	command -v kadmin.local >/dev/null || need+=(krb5-admin-server)
	command -v kinit >/dev/null || need+=(krb5-user)
	[ ${#need[@]} -eq 0 ] && return
	echo "secure-hbase: apt-get install ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# kdc_pid prints the pid of our KDC if it runs (its pid file, and a command
# line naming our kdc.conf's directory is not available, so check the
# executable and the environment marker instead).
kdc_pid() {
	local pid
	[ -f "$kdc/krb5kdc.pid" ] || return 1
	pid=$(cat "$kdc/krb5kdc.pid")
	[ -n "$pid" ] && [ -r "/proc/$pid/environ" ] || return 1
	tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "KRB5_KDC_PROFILE=$KRB5_KDC_PROFILE" || return 1
	echo "$pid"
}

stop_kdc() {
	local pid
	if pid=$(kdc_pid); then
		kill "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -f "$kdc/krb5kdc.pid"
}

write_conf() {
	mkdir -p "$kdc" "$dir/keytabs"
	# One machine, loopback only: no DNS for realms or KDCs, no reverse
	# lookups, no canonicalisation of host names (hbase/localhost stays
	# hbase/localhost), TCP only.
	cat >"$KRB5_CONFIG" <<CONF
[libdefaults]
	default_realm = $realm
	dns_lookup_realm = false
	dns_lookup_kdc = false
	rdns = false
	dns_canonicalize_hostname = false
	ignore_acceptor_hostname = true
	udp_preference_limit = 1
	forwardable = false
	ticket_lifetime = 24h
	default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
	$realm = {
		kdc = 127.0.0.1:$kdc_port
	}

[domain_realm]
	localhost = $realm
	127.0.0.1 = $realm
CONF
	cat >"$KRB5_KDC_PROFILE" <<CONF
[kdcdefaults]
	kdc_ports = $kdc_port
	kdc_tcp_ports = $kdc_port

[realms]
	$realm = {
		database_name = $kdc/principal
		key_stash_file = $kdc/stash
		acl_file = $kdc/kadm5.acl
		admin_keytab = $kdc/kadm5.keytab
		max_life = 24h
		max_renewable_life = 7d
		supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
		default_principal_flags = +preauth
	}

[logging]
	kdc = FILE:$kdc/kdc.log
CONF
	: >"$kdc/kadm5.acl"
}

# make_certs writes, under $dir/tls: ca.pem (the CA the servers and the
# clients trust), server.pem (the servers' PKCS#8 key and certificate, for
# HBase's PEM keystore), client.crt/client.key (a client certificate signed
# by the same CA) and other-ca.pem (a CA that signed nothing here).
make_certs() {
	local t="$dir/tls"
	rm -rf "$t"
	mkdir -p "$t"
	command -v openssl >/dev/null || {
		echo "secure-hbase: apt-get install openssl" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssl >/dev/null
	}
	(
		cd "$t"
		for ca in ca other-ca; do
			openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
				-subj "/O=hbkit/CN=hbkit local $ca" -keyout "$ca.key" -out "$ca.pem" 2>/dev/null
		done
		sign() { # name subject extensions
			openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
				-subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
			printf '%s\n' "$3" >"$1.ext"
			openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
				-extfile "$1.ext" -out "$1.crt" 2>/dev/null
		}
		sign server "/O=hbkit/CN=localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth,clientAuth"
		sign client "/O=hbkit/CN=hbkit" "extendedKeyUsage=clientAuth"
		cat server.key server.crt ca.pem >server.pem
		rm -f ./*.csr ./*.ext ./*.srl other-ca.key
		chmod 600 ./*.key server.pem
	)
}

up() {
	install_krb5
	go build -o "$launcher" ./tools/hbase
	down >/dev/null
	rm -rf "$kdc" "$dir/keytabs" "$dir/secure.env"
	write_conf
	kdb5_util -r "$realm" create -s -P "hbkit-$RANDOM$RANDOM" >/dev/null
	krb5kdc -P "$kdc/krb5kdc.pid"
	for _ in $(seq 50); do [ -s "$kdc/krb5kdc.pid" ] && break; sleep 0.1; done
	kdc_pid >/dev/null || { echo "secure-hbase: the KDC did not start; see $kdc/kdc.log" >&2; exit 1; }
	for p in "$server_principal" "$client_principal" "zookeeper/localhost@$realm"; do
		kadmin.local -r "$realm" -q "addprinc -randkey $p" >/dev/null
	done
	kadmin.local -r "$realm" -q "ktadd -k $dir/keytabs/hbase.keytab $server_principal" >/dev/null
	kadmin.local -r "$realm" -q "ktadd -k $dir/keytabs/client.keytab $client_principal" >/dev/null
	# A principal the KDC knows but whose keys no keytab holds, for the
	# refusal tests.
	kadmin.local -r "$realm" -q "addprinc -randkey nokeytab@$realm" >/dev/null
	kadmin.local -r "$realm" -q "ktadd -k $dir/keytabs/zookeeper.keytab zookeeper/localhost@$realm" >/dev/null
	chmod 600 "$dir"/keytabs/*.keytab
	if [ "${HBKIT_SECURE_ZK_SASL:-0}" = 1 ]; then
		cat >"$dir/jaas.conf" <<JAAS
Server {
	com.sun.security.auth.module.Krb5LoginModule required
	useKeyTab=true keyTab="$dir/keytabs/zookeeper.keytab" storeKey=true useTicketCache=false
	principal="zookeeper/localhost@$realm";
};
Client {
	com.sun.security.auth.module.Krb5LoginModule required
	useKeyTab=true keyTab="$dir/keytabs/hbase.keytab" storeKey=true useTicketCache=false
	principal="$server_principal";
};
JAAS
		export HBKIT_ZK_JAAS="$dir/jaas.conf"
	else
		rm -f "$dir/jaas.conf"
	fi
	export HBKIT_KRB5_CONF="$KRB5_CONFIG"
	export HBKIT_HBASE_KEYTAB="$dir/keytabs/hbase.keytab"
	export HBKIT_HBASE_PRINCIPAL="$server_principal"
	tls_env=""
	if [ "${HBKIT_SECURE_TLS:-0}" = 1 ]; then
		make_certs
		export HBKIT_TLS_KEYSTORE="$dir/tls/server.pem" HBKIT_TLS_TRUSTSTORE="$dir/tls/ca.pem"
		tls_env="export HBKIT_SECURE_TLS=1
export HBKIT_TLS_CA=$dir/tls/ca.pem
export HBKIT_TLS_CERT=$dir/tls/client.crt
export HBKIT_TLS_KEY=$dir/tls/client.key
export HBKIT_TLS_SERVER_NAME=localhost
export HBKIT_TLS_OTHER_CA=$dir/tls/other-ca.pem"
	else
		unset HBKIT_TLS_KEYSTORE HBKIT_TLS_TRUSTSTORE
		rm -rf "$dir/tls"
	fi
	"$launcher" up -fresh
	cat >"$dir/secure.env" <<ENV
# written by tools/secure-hbase.sh up; source it
export HBKIT_ZK=127.0.0.1:$HBKIT_ZK_PORT
export HBKIT_KRB5_CONF=$KRB5_CONFIG
export KRB5_CONFIG=$KRB5_CONFIG
export HBKIT_PRINCIPAL=$client_principal
export HBKIT_KEYTAB=$dir/keytabs/client.keytab
export HBKIT_SERVER_PRINCIPAL=$server_principal
export HBKIT_RPC_PROTECTION=$HBKIT_RPC_PROTECTION
export HBKIT_SECURE_STATE=$HBKIT_STATE
$tls_env
ENV
	echo "secure-hbase: up (rpc protection $HBKIT_RPC_PROTECTION${tls_env:+, tls}); source $dir/secure.env"
}

down() {
	local prot
	if [ -f "$dir/keytabs/hbase.keytab" ]; then
		# The launcher's Shutdown RPC authenticates as HBase itself, with
		# the protection the running instance was started with.
		prot=$(sed -n 's/^export HBKIT_RPC_PROTECTION=//p' "$dir/secure.env" 2>/dev/null || true)
		local tls=()
		if grep -qx 'export HBKIT_SECURE_TLS=1' "$dir/secure.env" 2>/dev/null; then
			tls=(HBKIT_TLS_KEYSTORE="$dir/tls/server.pem" HBKIT_TLS_TRUSTSTORE="$dir/tls/ca.pem")
		fi
		env "${tls[@]}" HBKIT_KRB5_CONF="$KRB5_CONFIG" HBKIT_HBASE_KEYTAB="$dir/keytabs/hbase.keytab" \
			HBKIT_HBASE_PRINCIPAL="$server_principal" HBKIT_RPC_PROTECTION="${prot:-authentication}" "$launcher" down
	fi
	stop_kdc
	echo "secure-hbase: down"
}

case "${1:-}" in
up) up ;;
down) down ;;
env) echo "$dir/secure.env" ;;
*)
	echo "usage: tools/secure-hbase.sh up|down|env" >&2
	exit 2
	;;
esac
