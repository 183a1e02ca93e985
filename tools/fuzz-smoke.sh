#!/usr/bin/env bash
# A short run of every fuzz target, package by package (make fuzz-smoke).
#
# Usage: tools/fuzz-smoke.sh FUZZTIME
#
# A target fails the run when it finds an input that fails: go test writes it
# under testdata/fuzz/<target>/, where the next `go test` replays it. Go's
# fuzzing engine also fails runs that found nothing:
#   - "context deadline exceeded" when -fuzztime ends while a worker is busy
#     (golang/go#51484); nothing is written;
#   - "fuzzing process hung or terminated unexpectedly" when a worker's 10 s
#     watchdog fires on a loaded machine (golang/go#56238); the input the
#     worker was running is written, and passes when replayed.
# Such a run is printed, its written input (if it passes on replay) removed,
# and the target run once more, which must pass. A failing seed-corpus entry
# is deterministic and fails at once. Listing packages or targets fails too:
# a package whose tests do not build must not pass as "no fuzz targets".
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:?usage: tools/fuzz-smoke.sh FUZZTIME}
go=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# inputs lists the files under a target's corpus directory, one per line.
inputs() { find "$1" -type f 2>/dev/null | sort || true; }

# run fuzzes one target; it returns 0 on a pass, 1 on a finding, 2 on an
# engine failure that is worth one more run.
run() {
	local pkg=$1 target=$2 dir=$3 before after f
	before=$(inputs "$dir")
	if "$go" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$log" 2>&1; then
		return 0
	fi
	cat "$log"
	if grep -q 'failure while testing seed corpus entry' "$log"; then
		return 1
	fi
	after=$(inputs "$dir")
	[ "$before" != "$after" ] || return 2
	for f in $(comm -13 <(echo "$before") <(echo "$after")); do
		if ! grep -q 'fuzzing process hung or terminated unexpectedly' "$log" ||
			! "$go" test -count=1 -timeout 60s -run "^${target}\$/^$(basename "$f")\$" "$pkg" >/dev/null 2>&1; then
			echo "fuzz-smoke: $target found a failing input, kept in $f:" >&2
			cat "$f" >&2
			return 1
		fi
		echo "fuzz-smoke: $target: the input a stopped worker was running passes on replay; removing $f:" >&2
		cat "$f" >&2
		rm -f "$f"
	done
	return 2
}

pkgs=$("$go" list ./...)
failed=0
# targets_of lists the fuzz targets of the package in dir from its test
# files' source, without building its test binary (go test -list builds
# one per package: minutes in CI). A file with a build constraint is read
# only when the default build includes it; when that cannot be told from
# the line alone, go test -list answers.
targets_of() {
	local pkg=$1 dir=$2 f c
	for f in "$dir"/*_test.go; do
		[ -e "$f" ] || continue
		grep -q '^func Fuzz' "$f" || continue
		c=$(grep -m1 '^//go:build ' "$f" || true)
		case "$c" in
		"") grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' ;;
		"//go:build integration") ;; # not in the default build
		*)
			"$go" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true
			return
			;;
		esac
	done | sort -u
}

for pkg in $pkgs; do
	pkgdir=$("$go" list -f '{{.Dir}}' "$pkg")
	targets=$(targets_of "$pkg" "$pkgdir")
	[ -n "$targets" ] || continue
	for target in $targets; do
		echo "fuzz $pkg $target"
		rc=0
		run "$pkg" "$target" "$pkgdir/testdata/fuzz/$target" || rc=$?
		if [ "$rc" -eq 2 ]; then
			echo "fuzz-smoke: $target failed without a finding; running it once more" >&2
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
