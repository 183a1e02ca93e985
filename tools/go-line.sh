#!/usr/bin/env bash
# go-line.sh checks that each module's `go` line is the oldest Go it can
# name: the highest `go` line among the modules it requires (go mod tidy
# raises a lower one to that; a higher one shuts out users of an older Go
# for nothing). It prints, per module, its go line and the requirement
# that sets the floor, and fails when a go line is above the floor.
#
# Its vet half: `make vet` runs go vet, whose stdversion analyzer reports
# any use of a standard-library name newer than the file's go line, so
# the line is also what the code itself needs.
#
# The build with that Go: it also checks that the go command running it
# is of the floor's minor version (go1.26.x for go 1.26.0), so CI's
# `make vet` and `make test`, which run before and after it with the same
# Go, are the build and vet on the oldest supported Go. A Go of exactly
# the floor's patch version is not installed here (the machine has Go
# 1.26.8, and golang.org/toolchain is not to be fetched); a patch release
# adds no language feature or API.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOWORK=off
fail=0
modules() { # DIR: go list -m all of the module in DIR (contrib/gohbase, contrib/beam: in their workspaces)
	local f='{{if not .Main}}{{.GoVersion}} {{.Path}}@{{.Version}}{{end}}'
	if [ "$1" = contrib/gohbase ]; then
		tools/gohbase-go.sh list -m -f "$f" all
	elif [ "$1" = contrib/beam ]; then
		tools/beam-go.sh list -m -f "$f" all
	else
		(cd "$1" && go list -m -f "$f" all)
	fi
}
for dir in . hbasecontainer contrib/gohbase contrib/beam; do
	[ -f "$dir/go.mod" ] || continue
	line=$(sed -n 's/^go //p' "$dir/go.mod")
	floor=$(modules "$dir" | awk 'NF == 2' | sort -V | tail -n 1)
	printf 'go-line: %-17s go %-7s floor %s\n' "$dir" "$line" "${floor:-none}"
	if [ -n "$floor" ] && [ "$(printf '%s\n%s\n' "$line" "${floor%% *}" | sort -V | tail -n 1)" != "${floor%% *}" ]; then
		echo "go-line: $dir says go $line, but its requirements need only ${floor%% *}: lower it" >&2
		fail=1
	fi
done
main=$(sed -n 's/^go //p' go.mod)
have=$(go env GOVERSION)
case "$have" in
"go${main%.*}".*) echo "go-line: building with $have, the minor version of the module's go $main" ;;
*) echo "go-line: the go command is $have, not of go ${main%.*}: CI builds on the oldest supported Go" >&2; fail=1 ;;
esac
exit $fail
