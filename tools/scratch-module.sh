#!/usr/bin/env bash
# scratch-module.sh proves that a Go module outside this repository can use
# hbkit at a released version: it creates a new module in a temporary
# directory (outside the checkout), which imports only released paths
# (github.com/hbkit/hbkit/{dao,schema,hbase} and the container module
# github.com/hbkit/hbkit/hbasecontainer), and runs a store round trip
# through an HBase container in `go test`.
#
# How the released versions are served without publishing them: a file
# proxy (GOPROXY=file://DIR) built from `git archive` of the checkout's
# current commit (plus uncommitted changes to tracked files, through
# `git stash create`), holding github.com/hbkit/hbkit at $HBKIT_VERSION and
# github.com/hbkit/hbkit/hbasecontainer at the same version (the tag
# hbasecontainer/$HBKIT_VERSION), each zipped as the module proxy serves a
# tag. The scratch module has no replace line and no go.work: the go
# command fetches, checksums and unpacks both modules as it would from the
# public proxy, so a file a release would not carry (one only in the work
# tree, or in another module's directory) is missing here too. Every other
# module comes from the local module cache (itself a file proxy), then the
# public proxy. The scratch versions are removed from the module cache
# before and after the run (github.com/hbkit/hbkit@$HBKIT_VERSION only: no
# such version is published), so a rerun sees the current commit; the
# rest of the cache, and the build cache, are shared, which keeps the run
# short. The checksum database does not know these versions: GONOSUMDB
# names them.
#
# Needs: a container engine for testcontainers-go (DOCKER_HOST) and the
# image HBKIT_IMAGE (tools/image/build.sh). tools/ci-containers.sh runs it.
# Usage: HBKIT_IMAGE=... DOCKER_HOST=... tools/scratch-module.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version=${HBKIT_VERSION:-v0.1.0}
: "${HBKIT_IMAGE:?set HBKIT_IMAGE to the HBase image (tools/image/build.sh)}"
t0=$(date +%s)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hbkit-scratch.XXXXXX")
modcache=$(go env GOMODCACHE)
forget() { # the scratch versions, out of the module cache
	local d
	for d in "$modcache/github.com/hbkit/hbkit@$version" "$modcache/github.com/hbkit/hbkit/hbasecontainer@$version" \
		"$modcache/cache/download/github.com/hbkit/hbkit/@v/$version".* \
		"$modcache/cache/download/github.com/hbkit/hbkit/hbasecontainer/@v/$version".*; do
		[ -e "$d" ] || continue
		chmod -R u+w "$d"
		rm -rf "$d"
	done
}
trap 'forget; rm -rf "$tmp"' EXIT
forget
proxy=$tmp/proxy
rev=$(git stash create 2>/dev/null || true)
rev=${rev:-HEAD}
stamp=$(git show -s --format=%cI HEAD)

# publish MODULE DIR: MODULE at $version from directory DIR of $rev,
# without the directories of other modules below it.
publish() {
	local mod=$1 dir=$2 at=$proxy/$1/@v
	mkdir -p "$at"
	local excludes=()
	while read -r sub; do
		sub=${sub%/go.mod}
		[ "$sub" = "$dir" ] || [ "$sub" = go.mod ] && continue
		excludes+=(":(exclude)$sub")
	done < <(git ls-tree -r --name-only "$rev" | grep -E '(^|/)go\.mod$')
	local pathspec=.
	[ "$dir" != . ] && pathspec=$dir
	(cd "$tmp" && rm -rf stage && mkdir stage)
	git archive "$rev" -- "$pathspec" "${excludes[@]}" | tar -x -C "$tmp/stage"
	(cd "$tmp/stage/$dir" && mkdir -p "$tmp/zip/$mod@$version" && cp -a . "$tmp/zip/$mod@$version/")
	(cd "$tmp/zip" && zip -qr -X "$at/$version.zip" "$mod@$version")
	rm -rf "$tmp/zip" "$tmp/stage"
	local gomod=go.mod
	[ "$dir" != . ] && gomod=$dir/go.mod
	git show "$rev:$gomod" >"$at/$version.mod"
	printf '{"Version":"%s","Time":"%s"}\n' "$version" "$stamp" >"$at/$version.info"
	echo "$version" >"$at/list"
}
command -v zip >/dev/null || { echo "scratch-module: zip is missing (apt-get install zip)" >&2; exit 1; }
publish github.com/hbkit/hbkit .
publish github.com/hbkit/hbkit/hbasecontainer hbasecontainer
note=; [ "$rev" != HEAD ] && note=" with uncommitted changes"
echo "scratch-module: file proxy of $version from $(git rev-parse --short HEAD)$note in $(($(date +%s) - t0)) s"

mod=$tmp/scratch
mkdir -p "$mod"
cat >"$mod/go.mod" <<GOMOD
module example.com/scratch

go $(sed -n 's/^go //p' hbasecontainer/go.mod)

require (
	github.com/hbkit/hbkit $version
	github.com/hbkit/hbkit/hbasecontainer $version
)
GOMOD
cp tools/scratch/testdata/roundtrip_test.go "$mod/roundtrip_test.go"

export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
# goindex=0: the go command's module index (in the build cache) takes a
# module cache directory for immutable and keys it by path alone, so a
# v0.1.0 made again from a later commit would be read with the files of
# the first one (a build failing on files that no longer exist).
export GODEBUG=goindex=0
export GOPROXY="file://$proxy,file://$modcache/cache/download,https://proxy.golang.org"
export GONOSUMDB=github.com/hbkit/hbkit
export TESTCONTAINERS_RYUK_DISABLED=${TESTCONTAINERS_RYUK_DISABLED:-true}
cd "$mod"
# -mod=mod: go test resolves and records what the imports need (go mod
# tidy would also fetch the tests of every dependency).
go test -count=1 -v ./... 2>&1 | grep -v '^20[0-9][0-9]/' # testcontainers' progress lines
if grep -q replace go.mod; then echo "scratch-module: go.mod has a replace line" >&2; exit 1; fi
grep hbkit go.mod
echo "scratch-module: passed in $(($(date +%s) - t0)) s"
