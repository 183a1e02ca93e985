#!/usr/bin/env bash
# beam-go.sh GO-ARGS... runs `go GO-ARGS...` in contrib/beam, the Apache
# Beam pipeline's own module (the main module never depends on Beam), in a
# workspace of two modules: the checkout's root and contrib/beam.
# contrib/beam/go.mod requires a released hbkit (v0.1.0) with no replace
# line; the workspace maps that version to the checkout, as contrib/go.work
# does, without needing the gohbase source contrib/go.work also names.
#
# beam-go.sh tidy-check: go.mod and go.sum as `go mod tidy` leaves them,
# with v0.1.0 taken from the checkout (a temporary -modfile with a replace
# line; the replace line itself is not compared).
#
#   tools/beam-go.sh test ./...
#   HBKIT_ZK=127.0.0.1:2281 tools/beam-go.sh test -tags integration ./...
#   tools/beam-go.sh tidy-check
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
cd contrib/beam
GO=${GO:-go}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-beam.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
replace="replace github.com/hbkit/hbkit v0.1.0 => $repo"

if [ "${1:-}" = tidy-check ]; then
	cp go.mod "$tmp/go.mod"
	cp go.sum "$tmp/go.sum"
	echo "$replace" >>"$tmp/go.mod"
	GOWORK=off GOFLAGS=-mod=mod "$GO" mod tidy -modfile="$tmp/go.mod"
	sed -i "\#^$replace\$#d" "$tmp/go.mod"
	# tidy leaves a blank line where the replace line was.
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/go.mod"
	fail=0
	diff -u go.mod "$tmp/go.mod" || fail=1
	diff -u go.sum "$tmp/go.sum" || fail=1
	[ $fail = 0 ] || echo "beam-go: contrib/beam/go.mod or go.sum is not tidy (apply the diff above)" >&2
	exit $fail
fi

cat >"$tmp/go.work" <<WORK
go $(sed -n 's/^go //p' go.mod)

use (
	$repo
	$repo/contrib/beam
)

$replace
WORK
[ -f ../go.work.sum ] && cp ../go.work.sum "$tmp/go.work.sum"
GOWORK=$tmp/go.work "$GO" "$@"
