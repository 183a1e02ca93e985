#!/usr/bin/env bash
# A short run of every fuzz target, package by package (make fuzz-smoke).
#
# Usage: tools/fuzz-smoke.sh FUZZTIME
#
# A target fails the run when go test fails and either wrote a failing input
# (a new file under testdata/fuzz/<target>/: a real finding, kept for the
# next `go test` to replay) or fails again when run once more. Go's fuzzing
# engine sometimes fails a run with no finding at all, when -fuzztime runs out
# while a worker is busy ("context deadline exceeded", golang/go#51484) or a
# worker's watchdog fires on a loaded machine ("fuzzing process hung or
# terminated unexpectedly", golang/go#56238). That run gets one retry, and its
# output is printed either way.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:?usage: tools/fuzz-smoke.sh FUZZTIME}
go=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# inputs lists the files under a target's corpus directory, one per line.
inputs() { find "$1" -type f 2>/dev/null | sort || true; }

# run fuzzes one target; it returns 0 on a pass, 1 on a finding, 2 on a
# failure that wrote no failing input.
run() {
	local pkg=$1 target=$2 dir=$3 before after
	before=$(inputs "$dir")
	if "$go" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$log" 2>&1; then
		return 0
	fi
	cat "$log"
	after=$(inputs "$dir")
	if [ "$before" != "$after" ]; then
		echo "fuzz-smoke: $target found a failing input; it is in $dir:" >&2
		comm -13 <(echo "$before") <(echo "$after") >&2
		return 1
	fi
	return 2
}

failed=0
for pkg in $("$go" list ./...); do
	targets=$("$go" test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	[ -n "$targets" ] || continue
	pkgdir=$("$go" list -f '{{.Dir}}' "$pkg")
	for target in $targets; do
		echo "fuzz $pkg $target"
		rc=0
		run "$pkg" "$target" "$pkgdir/testdata/fuzz/$target" || rc=$?
		if [ "$rc" -eq 2 ]; then
			echo "fuzz-smoke: $target failed without a failing input; running it once more" >&2
			rc=0
			run "$pkg" "$target" "$pkgdir/testdata/fuzz/$target" || rc=$?
		fi
		if [ "$rc" -ne 0 ]; then
			echo "FAIL fuzz $pkg $target" >&2
			failed=1
		fi
	done
done
exit "$failed"
