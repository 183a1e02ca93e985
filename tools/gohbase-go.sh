#!/usr/bin/env bash
# gohbase-go.sh GO-ARGS... runs `go GO-ARGS...` in contrib/gohbase, the
# gohbase adapter's own module, in the workspace contrib/go.work: hbkit
# from this checkout (contrib/gohbase/go.mod requires a released version,
# with no replace), gohbase from ../shared/third_party/gohbase (the module
# proxy here does not serve it).
#
# To build against another gohbase checkout, set GOHBASE_SRC to its
# directory: the command then runs with a temporary copy of the workspace
# whose replace points there (GOWORK), and the committed files stay as
# they are.
#
#   tools/gohbase-go.sh test ./...
#   GOHBASE_SRC=~/src/gohbase tools/gohbase-go.sh test -tags integration ./...
set -euo pipefail
cd "$(dirname "$0")/../contrib/gohbase"
GO=${GO:-go}
export GOWORK=$(cd .. && pwd)/go.work
if [ -z "${GOHBASE_SRC:-}" ]; then
	exec "$GO" "$@"
fi
src=$(cd "$GOHBASE_SRC" && pwd)
[ -f "$src/go.mod" ] || { echo "gohbase-go: GOHBASE_SRC=$GOHBASE_SRC has no go.mod" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$(cd ../.. && pwd)
cat >"$tmp/go.work" <<WORK
go $(sed -n 's/^go //p' ../go.work)

use (
	$repo
	$repo/contrib/gohbase
)

$(grep '^replace github.com/hbkit/hbkit ' ../go.work | sed "s#=> \.\.\$#=> $repo#")

replace github.com/tsuna/gohbase => $src
WORK
[ -f ../go.work.sum ] && cp ../go.work.sum "$tmp/go.work.sum"
echo "gohbase-go: building gohbase from $src"
GOWORK=$tmp/go.work "$GO" "$@"
