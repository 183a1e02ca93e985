#!/usr/bin/env bash
# test-secure.sh (make test-secure) starts the Kerberized local HBase of
# tools/secure-hbase.sh afresh, checks it with HBase's own Java client
# (tools/secure/check.sh), runs hbkit's Kerberos tests against it (the
# conformance suite over Kerberos, the refusals with their typed errors,
# a Kerberos client against a plain HBase when HBKIT_PLAIN_ZK is set), the
# SMS example over Kerberos and TLS, and
# stops it at exit. HBKIT_RPC_PROTECTION picks the quality of protection
# (default privacy: every frame encrypted); HBKIT_SECURE_ZK_SASL (default
# 1 here) has ZooKeeper authenticate HBase with SASL, so that HBase puts
# ACLs on its znodes and hbkit reads them unauthenticated, as on a real
# secured cluster. HBKIT_SECURE_TLS (default 1 here) adds HBase's native
# RPC TLS, plaintext refused, on the same single start: every Kerberos
# test then runs over TLS + Kerberos (SASL inside TLS), and the TLS tests
# check the refusals (wrong CA, wrong server name, clients without TLS,
# a TLS client against the plain HBase when HBKIT_PLAIN_ZK is set).
# The plain local HBase is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
export HBKIT_RPC_PROTECTION="${HBKIT_RPC_PROTECTION:-privacy}"
export HBKIT_SECURE_ZK_SASL="${HBKIT_SECURE_ZK_SASL:-1}"
export HBKIT_SECURE_TLS="${HBKIT_SECURE_TLS:-1}"
trap 'tools/secure-hbase.sh down' EXIT
tools/secure-hbase.sh up
tools/secure/check.sh
set -a
. "$(tools/secure-hbase.sh env)"
set +a
go test -count=1 -tags integration -run 'Kerberos|TLS' -v ./internal/rpc/ ./hbase/ 2>&1 |
	grep -E '^(---|ok|FAIL|PASS)|(kerberos|tls)_integration_test' 
# The SMS example (make demo's program, with its index and queries) over
# Kerberos and TLS: its integration test connects with the settings of
# secure.env (examples/internal/nsclient.SecurityOptions), as does
# `go run ./examples/sms` itself.
go test -count=1 -tags integration -run 'TestIntegration' -v ./examples/sms/ 2>&1 |
	grep -E '^(---|ok|FAIL|PASS)'
