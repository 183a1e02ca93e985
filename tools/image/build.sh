#!/usr/bin/env bash
# build.sh builds the HBase image of hbasecontainer/Dockerfile here, where no
# registry is reachable, and prints its tag (make hbase-image). Outside users
# build the same Dockerfile with one docker build (docs/containers.md); this
# script only feeds it local stand-ins for what that build pulls:
#
#   1. base:  BASE, a minimal Debian root filesystem (debootstrap
#             --variant=minbase) with openjdk-17-jre-headless from Debian's
#             packages, stripped of docs, man pages and apt lists, packed as a
#             sorted tarball with fixed owners and clamped mtimes, and imported
#             as localhost/hbkit/debian-jre:<suite>-<hash>.
#   2. hbase: the Dockerfile's target prebuilt, FROM that base, with the HBase
#             jars the launcher resolves with Maven on the host (go run
#             ./tools/hbase classpath, tools/hbase/pom.xml) and their
#             classpath order in the context's hbase-jars/ instead of the jars
#             stage (Maven in a public image), which is never built; tagged
#             localhost/hbkit/hbase:<version>-<hash>.
#
# Each hash covers that stage's inputs, so a stage whose inputs did not change
# is skipped: the second run only hashes the jars and checks that the tag
# exists. The base tarball and its package manifest are cached under
# $HBKIT_CACHE/image. A new HBase image replaces the older localhost/hbkit/hbase
# tags.
#
# Usage: tools/image/build.sh [--print-tag | --base | --maven]
#   --print-tag   print the tag the inputs give, build nothing
#   --base        build (or find) the base stage only and print its tag; needs
#                 no Maven, so .ci/run starts it in the background while
#                 make test resolves the HBase jars
#   --maven       build the Dockerfile's default target, as an outside user's
#                 docker build does (the jars resolved by Maven inside the
#                 build, from Maven Central), with local stand-ins for the two
#                 public images: BASE the base above, BUILDER the base plus
#                 Debian's maven package (localhost/hbkit/debian-maven); then
#                 check that its classpath is the launcher's. Tagged
#                 localhost/hbkit/hbase-maven:<version>; not cached (it
#                 downloads the jars every time)
#
# Environment:
#   HBKIT_CACHE          cache root (default ~/.cache/hbkit)
#   HBKIT_ENGINE         podman or docker (default: docker when DOCKER_HOST is set
#                        and the docker CLI is installed, else podman if
#                        installed, else docker); docker honours DOCKER_HOST,
#                        so the image is built straight into that engine
#   HBKIT_DEBIAN_MIRROR  Debian mirror for debootstrap (default http://deb.debian.org/debian)
#   SOURCE_DATE_EPOCH    mtime clamp and image timestamp (default 1747699200, 2025-05-20)
#
# The base stage needs root and debootstrap (apt-get install debootstrap).
set -euo pipefail
cd "$(dirname "$0")/../.."

dockerfile=hbasecontainer/Dockerfile
files=(hbasecontainer/image/entrypoint.sh hbasecontainer/image/log4j2.properties)

print_only=false
base_only=false
maven=false
case "${1:-}" in
--print-tag) print_only=true ;;
--base) base_only=true ;;
--maven) maven=true ;;
"") ;;
*) echo "usage: $0 [--print-tag | --base | --maven]" >&2; exit 2 ;;
esac

suite=bookworm
mirror=${HBKIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=openjdk-17-jre-headless
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1747699200}
cache=${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}/image
mkdir -p "$cache"

# The engine: HBKIT_ENGINE; else docker when DOCKER_HOST names an engine and
# the docker CLI is here (a developer's Docker); else podman; else docker.
engine=${HBKIT_ENGINE:-}
if [ -z "$engine" ]; then
	if [ -n "${DOCKER_HOST:-}" ] && command -v docker >/dev/null; then engine=docker
	elif command -v podman >/dev/null; then engine=podman
	elif command -v docker >/dev/null; then engine=docker
	else echo "build.sh: neither podman nor docker is installed" >&2; exit 1
	fi
fi

log() { printf 'hbase-image: %s\n' "$*" >&2; }
sha() { sha256sum | cut -c1-12; }
image_exists() { "$engine" image inspect "$1" >/dev/null 2>&1; }

# The base stage's inputs: this script's base recipe (between the markers
# below), the suite, the mirror and the package list.
base_recipe=$(sed -n '/^# --- base recipe/,/^# --- end base recipe/p' "$0")
base_hash=$(printf '%s\n' "$base_recipe" "$suite" "$mirror" "$packages" "$(uname -m)" | sha)
base_tag=localhost/hbkit/debian-jre:$suite-$base_hash
base_tar=$cache/base-$base_hash.tar
manifest=$cache/base-$base_hash.manifest

# The HBase stage's inputs: the base, the jars (content), their order, and
# the files copied into the image.
# --- base recipe (its text is part of the base hash)
build_base() {
	command -v debootstrap >/dev/null || { echo "build.sh: debootstrap is missing: apt-get install -y debootstrap" >&2; exit 1; }
	[ "$(id -u)" = 0 ] || { echo "build.sh: the base stage (debootstrap) needs root" >&2; exit 1; }
	local root
	root=$(mktemp -d "$cache/rootfs.XXXXXX")
	# shellcheck disable=SC2064
	trap "umount '$root/proc' 2>/dev/null || true; rm -rf '$root'" EXIT
	log "debootstrap $suite (minbase) from $mirror"
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >&2
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	log "install $packages"
	chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
		apt-get install -y -q --no-install-recommends $packages >&2
	chroot "$root" java -version >&2
	chroot "$root" dpkg-query -W -f '${Package}=${Version}\n' | LC_ALL=C sort >"$manifest.tmp"
	chroot "$root" apt-get clean
	umount "$root/proc"
	# What varies from run to run, or is not needed to run a JVM.
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
		"$root"/var/lib/dpkg/*-old "$root"/var/cache/ldconfig/aux-cache "$root"/var/log/* \
		"$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
		"$root"/usr/share/locale/* "$root"/usr/sbin/policy-rc.d "$root"/tmp/* "$root"/root/.??*
	: >"$root/etc/machine-id"
	rm -f "$root/etc/hostname" "$root/etc/resolv.conf"
	# Sorted, numeric owners, mtimes clamped, no atime/ctime: the same files
	# give the same tarball.
	tar --sort=name --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		-C "$root" -cf "$base_tar.tmp" .
	mv "$manifest.tmp" "$manifest"
	mv "$base_tar.tmp" "$base_tar"
	rm -rf "$root"
	trap - EXIT
}
# --- end base recipe

ensure_base() {
	local t0
	t0=$(date +%s)
	image_exists "$base_tag" && return
	if [ ! -s "$base_tar" ]; then
		build_base
		log "base rootfs built in $(($(date +%s) - t0)) s: $base_tar ($(du -h "$base_tar" | cut -f1)), packages in $manifest"
	fi
	log "import $base_tag"
	"$engine" import --change 'CMD ["/bin/bash"]' - "$base_tag" <"$base_tar" >/dev/null 2>"$cache/import.log" ||
		{ cat "$cache/import.log" >&2; exit 1; }
}

if $base_only; then
	ensure_base
	echo "$base_tag"
	exit 0
fi

hbase_version=$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' tools/hbase/pom.xml)
# An outside user's build resolves the Dockerfile's default HBASE_VERSION;
# the image built here runs the pom's: they must be the same.
df_version=$(sed -n 's/^ARG HBASE_VERSION=//p' "$dockerfile")
if [ "$df_version" != "$hbase_version" ]; then
	echo "build.sh: $dockerfile builds HBase $df_version by default, tools/hbase/pom.xml runs $hbase_version: make them agree" >&2
	exit 1
fi

# build ARGS...: the engine's build of the Dockerfile; podman clamps the
# image's timestamps. podman keeps its default OCI format, which drops the
# HEALTHCHECK (podman here cannot schedule one anyway: no systemd): its
# docker format names intermediate image IDs in the history, so the same
# inputs would no longer give the same image (buildah 1.28).
build() {
	local flags=()
	[ "$engine" = podman ] && flags+=(--timestamp "$SOURCE_DATE_EPOCH")
	"$engine" build -q "${flags[@]}" --build-arg "BASE=$base_tag" -f "$dockerfile" "$@" 2> >(grep -v 'HEALTHCHECK is not supported for OCI' >&2) >/dev/null
}

# remove_older REPO TAG: images of earlier inputs only take space (vfs
# stores every layer whole).
remove_older() {
	"$engine" images --filter "reference=$1" --format '{{.Repository}}:{{.Tag}}' |
		while read -r old; do
			if [ "$old" != "$2" ] && [ "$old" != "<none>:<none>" ]; then
				log "remove the outdated $old"
				"$engine" rmi "$old" >/dev/null 2>&1 || log "(still in use: $old kept)"
			fi
		done
}

# classpath_of IMAGE: the classpath order the image runs.
classpath_of() {
	"$engine" run --rm --entrypoint cat "$1" /opt/hbase/conf/classpath
}

# build_maven builds the default target, the jars resolved by Maven inside
# the build, from the repository's root as an outside user does (only the
# public images are replaced), and checks its classpath against the
# launcher's.
build_maven() {
	ensure_base
	local tag=localhost/hbkit/hbase-maven:${hbase_version%-hadoop3} builder dir t0
	# The builder: the base plus Debian's maven, and the host's extra CA
	# certificates, for a machine whose egress goes through a TLS proxy
	# (Maven checks Maven Central's certificate).
	dir=$(mktemp -d "$cache/builder.XXXXXX")
	mkdir "$dir/ca"
	cp /usr/local/share/ca-certificates/*.crt "$dir/ca/" 2>/dev/null || true
	printf '%s\n' "FROM $base_tag" \
		'RUN mkdir -p /usr/share/man/man1 && apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends maven && rm -rf /var/lib/apt/lists/*' \
		'COPY ca/ /usr/local/share/ca-certificates/' \
		'RUN update-ca-certificates' >"$dir/Containerfile"
	builder=localhost/hbkit/debian-maven:$suite-$(find "$dir" -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | sha)
	if ! image_exists "$builder"; then
		log "build $builder (the base plus Debian's maven)"
		"$engine" build -q -t "$builder" "$dir" >/dev/null
	fi
	rm -rf "$dir"
	t0=$(date +%s)
	log "build $tag: $dockerfile's default target, the jars from Maven Central"
	build --build-arg "BUILDER=$builder" -t "$tag" .
	log "built in $(($(date +%s) - t0)) s"
	local want got
	want=$(tr ':' '\n' <<<"$cp_list" | xargs -n1 basename)
	got=$(classpath_of "$tag" | tr ':' '\n' | xargs -n1 basename)
	if [ "$want" != "$got" ]; then
		echo "build.sh: $tag runs another classpath than the launcher's:" >&2
		diff <(echo "$want") <(echo "$got") >&2 || true
		exit 1
	fi
	log "$tag: the launcher's $(wc -l <<<"$want") jars, in its order"
	echo "$tag"
}

cp_list=$(go run ./tools/hbase classpath)
if $maven; then
	build_maven
	exit 0
fi

jar_hash=$(tr ':' '\n' <<<"$cp_list" | xargs sha256sum | awk '{print $1}' | sha)
order_hash=$(tr ':' '\n' <<<"$cp_list" | xargs -n1 basename | sha)
files_hash=$(cat "$dockerfile" "${files[@]}" | sha)
hash=$(printf '%s\n' "$base_hash" "$jar_hash" "$order_hash" "$files_hash" | sha)
tag=localhost/hbkit/hbase:${hbase_version%-hadoop3}-$hash

if $print_only; then
	echo "$tag"
	exit 0
fi
if image_exists "$tag"; then
	log "up to date: $tag"
	echo "$tag"
	exit 0
fi

ensure_base

# The context: the files the Dockerfile copies, at their paths in the
# repository, and the jars in hbase-jars/ for its target prebuilt.
t1=$(date +%s)
ctx=$(mktemp -d "$cache/context.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/hbase-jars/lib" "$ctx/hbase-jars/conf"
tr ':' '\n' <<<"$cp_list" | xargs -I{} cp {} "$ctx/hbase-jars/lib/"
tr ':' '\n' <<<"$cp_list" | xargs -n1 basename | sed 's:^:/opt/hbase/lib/:' | paste -sd: >"$ctx/hbase-jars/conf/classpath"
cp --parents "${files[@]}" "$ctx/"
find "$ctx" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
log "build $tag"
build --target prebuilt --label "org.hbkit.base-manifest=$(basename "$manifest")" -t "$tag" "$ctx"
log "hbase stage built in $(($(date +%s) - t1)) s"
remove_older localhost/hbkit/hbase "$tag"
echo "$tag"
