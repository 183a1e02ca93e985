#!/bin/sh
# hbapi-switch.sh DIR...: make the non-test Go files of each DIR use the
# client's vocabulary (package hbase/hbapi) instead of the native client
# (package hbase). Mechanical: the import path, and the package name in
# selector expressions (hbase.Put -> hbapi.Put); comments are left alone
# (hbase's names are aliases of hbapi's, so they stay true). Safe to run
# again. Fails (go build) if a file uses a name only the client has.
set -eu
cd "$(dirname "$0")/.."
for dir in "$@"; do
	for f in "$dir"/*.go; do
		case "$f" in *_test.go) continue ;; esac
		grep -q '^[[:space:]]*"github.com/hbkit/hbkit/hbase"$' "$f" || continue
		sed -i 's#^\([[:space:]]*\)"github.com/hbkit/hbkit/hbase"$#\1"github.com/hbkit/hbkit/hbase/hbapi"#' "$f"
		gofmt -r 'hbase.x -> hbapi.x' -w "$f"
	done
	go build "./$dir"
done
