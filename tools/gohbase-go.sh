#!/usr/bin/env bash
# gohbase-go.sh GO-ARGS... runs `go GO-ARGS...` in contrib/gohbase, the
# gohbase adapter's own module.
#
# Its go.mod builds gohbase from ../shared/third_party/gohbase (a replace
# directive: the module proxy here does not serve gohbase). To build
# against another checkout, set GOHBASE_SRC to its directory: the command
# then runs with a temporary copy of go.mod whose replace points there
# (go -modfile), and the committed go.mod and go.sum stay as they are.
#
#   tools/gohbase-go.sh test ./...
#   GOHBASE_SRC=~/src/gohbase tools/gohbase-go.sh test -tags integration ./...
set -euo pipefail
cd "$(dirname "$0")/../contrib/gohbase"
GO=${GO:-go}
if [ -z "${GOHBASE_SRC:-}" ]; then
	exec "$GO" "$@"
fi
src=$(cd "$GOHBASE_SRC" && pwd)
[ -f "$src/go.mod" ] || { echo "gohbase-go: GOHBASE_SRC=$GOHBASE_SRC has no go.mod" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod "$tmp/go.mod"
cp go.sum "$tmp/go.sum"
"$GO" mod edit -modfile="$tmp/go.mod" -replace "github.com/tsuna/gohbase=$src"
echo "gohbase-go: building gohbase from $src"
"$GO" "$1" -modfile="$tmp/go.mod" -mod=mod "${@:2}"
