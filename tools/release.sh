#!/usr/bin/env bash
# release.sh checks what a v0.x release of hbkit needs and, with --tag,
# creates the release's annotated tags at HEAD. It never pushes.
#
# Usage: tools/release.sh [--tag] vX.Y.Z
#
# The modules are those of every go.mod git tracks outside tools/: the
# root module is tagged vX.Y.Z, the one in DIR is tagged DIR/vX.Y.Z
# (hbasecontainer/vX.Y.Z, contrib/gohbase/vX.Y.Z), as the go command
# expects of modules in subdirectories.
#
# Checks, all run, each failure listed:
#   - the version is vMAJOR.MINOR.PATCH with MAJOR 0 (API v0 rules,
#     CHANGELOG.md);
#   - CHANGELOG.md has a section for it: "## vX.Y.Z", optionally followed
#     by a date;
#   - the work tree is clean, so the tags name what was checked;
#   - go mod tidy -diff is empty in every module, except one that requires
#     github.com/hbkit/hbkit at this very version: that version does not
#     exist before the tags are pushed, so its check is deferred (run
#     `go mod tidy -diff` in it once they are);
#   - a module requiring github.com/hbkit/hbkit at another version requires
#     a tagged one;
#   - none of the tags exists yet.
#
# Without --tag nothing changes (a dry run); the exit status is 1 when a
# check failed. With --tag, and only when every check passed, it runs
# git tag -a for every module and prints the git push that publishes them.
set -euo pipefail
cd "$(dirname "$0")/.."

tag=false
if [ "${1:-}" = --tag ]; then
	tag=true
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--tag] vX.Y.Z" >&2
	exit 2
fi
version=$1

failed=0
ok() { printf 'ok        %s\n' "$*"; }
fail() { printf 'FAIL      %s\n' "$*"; failed=$((failed + 1)); }
deferred() { printf 'deferred  %s\n' "$*"; }

# The module directories ("." for the root) and their tags.
mapfile -t dirs < <(git ls-files -- '*go.mod' 'go.mod' | grep -v '^tools/' | xargs -n1 dirname | LC_ALL=C sort -u)
tags=()
for d in "${dirs[@]}"; do
	if [ "$d" = . ]; then tags+=("$version"); else tags+=("$d/$version"); fi
done

if [[ $version =~ ^v0\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]]; then
	ok "version $version is a v0.x release"
else
	fail "version $version is not v0.MINOR.PATCH"
fi

if grep -Eq "^## \[?${version//./\\.}\]?( .*)?$" CHANGELOG.md; then
	ok "CHANGELOG.md has a section for $version"
else
	fail "CHANGELOG.md has no section \"## $version\" (rename \"## Unreleased\", add the date)"
fi

if [ -z "$(git status --porcelain)" ]; then
	ok "the work tree is clean (HEAD $(git rev-parse --short HEAD))"
else
	fail "the work tree has changes (git status): the tags would not name them"
fi

# check_module DIR: its requirement of hbkit, then go mod tidy -diff.
check_module() {
	local d=$1 need out
	# The go.mod's own requirement (go mod edit reads it without the
	# network or a go.work).
	need=$(cd "$d" && go mod edit -json | awk -F'"' '
		$2 == "Require" { req = 1 } $2 == "Exclude" || $2 == "Replace" { req = 0 }
		req && $2 == "Path" { hb = ($4 == "github.com/hbkit/hbkit") }
		req && hb && $2 == "Version" { print $4; exit }')
	if [ "$d" != . ] && [ -n "$need" ]; then
		if [ "$need" = "$version" ]; then
			deferred "$d: go mod tidy -diff (it requires github.com/hbkit/hbkit $version, published by these tags)"
			return
		fi
		if git rev-parse -q --verify "refs/tags/$need" >/dev/null; then
			ok "$d requires github.com/hbkit/hbkit $need, a tagged version"
		else
			fail "$d requires github.com/hbkit/hbkit $need, which has no tag here"
		fi
	fi
	if out=$(cd "$d" && GOWORK=off go mod tidy -diff 2>&1); then
		ok "$d: go mod tidy -diff is empty"
	else
		fail "$d: go mod tidy -diff is not empty:"
		printf '%s\n' "$out" | sed 's/^/          /' | head -20
	fi
}
for d in "${dirs[@]}"; do
	check_module "$d"
done

for t in "${tags[@]}"; do
	if git rev-parse -q --verify "refs/tags/$t" >/dev/null; then
		fail "tag $t exists already"
	else
		ok "tag $t is free"
	fi
done

if [ "$failed" -gt 0 ]; then
	echo "not ready: $failed check(s) failed; nothing tagged"
	exit 1
fi
if ! $tag; then
	echo "ready: tools/release.sh --tag $version creates ${tags[*]} at HEAD"
	exit 0
fi
for t in "${tags[@]}"; do
	git tag -a "$t" -m "hbkit $t"
	echo "tagged $t at $(git rev-parse --short "$t^{commit}")"
done
echo "publish with: git push origin ${tags[*]}"
