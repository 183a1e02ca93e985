#!/usr/bin/env bash
# build.sh builds the local HBase image that the container path of the
# integration tests runs (make hbase-image), and prints its tag.
#
# No registry is reachable from our machines, so nothing is pulled:
#
#   1. base:  a minimal Debian root filesystem (debootstrap --variant=minbase)
#             with openjdk-17-jre-headless from Debian's packages, stripped of
#             docs, man pages and apt lists, packed as a sorted tarball with
#             fixed owners and clamped mtimes, and imported as
#             localhost/hbkit/debian-jre:<suite>-<hash>.
#   2. hbase: FROM that base, the HBase jars the launcher resolves with Maven
#             (go run ./tools/hbase classpath, tools/hbase/pom.xml), their
#             classpath order, a log4j2 configuration and entrypoint.sh,
#             tagged localhost/hbkit/hbase:<version>-<hash>.
#
# Each hash covers that stage's inputs, so a stage whose inputs did not change
# is skipped: the second run only hashes the jars and checks that the tag
# exists. The base tarball and its package manifest are cached under
# $HBKIT_CACHE/image. A new HBase image replaces the older localhost/hbkit/hbase
# tags.
#
# Usage: tools/image/build.sh [--print-tag | --base]
#   --print-tag   print the tag the inputs give, build nothing
#   --base        build (or find) the base stage only and print its tag; needs
#                 no Maven, so .ci/run starts it in the background while
#                 make test resolves the HBase jars
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
here=tools/image

print_only=false
base_only=false
case "${1:-}" in
--print-tag) print_only=true ;;
--base) base_only=true ;;
"") ;;
*) echo "usage: $0 [--print-tag | --base]" >&2; exit 2 ;;
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

cp_list=$(go run ./tools/hbase classpath)
hbase_version=$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' tools/hbase/pom.xml)
jar_hash=$(tr ':' '\n' <<<"$cp_list" | xargs sha256sum | awk '{print $1}' | sha)
order_hash=$(tr ':' '\n' <<<"$cp_list" | xargs -n1 basename | sha)
files_hash=$(cat "$here/Containerfile" "$here/entrypoint.sh" "$here/log4j2.properties" | sha)
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

t1=$(date +%s)
ctx=$(mktemp -d "$cache/context.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/lib" "$ctx/conf"
tr ':' '\n' <<<"$cp_list" | xargs -I{} cp {} "$ctx/lib/"
tr ':' '\n' <<<"$cp_list" | xargs -n1 basename | sed 's:^:/opt/hbase/lib/:' | paste -sd: >"$ctx/conf/classpath"
cp "$here/log4j2.properties" "$ctx/conf/"
cp "$here/entrypoint.sh" "$ctx/"
chmod 755 "$ctx/entrypoint.sh"
find "$ctx" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
build_flags=()
[ "$engine" = podman ] && build_flags+=(--timestamp "$SOURCE_DATE_EPOCH")
log "build $tag"
"$engine" build -q "${build_flags[@]}" --build-arg "BASE=$base_tag" \
	--label "org.hbkit.base-manifest=$(basename "$manifest")" \
	-f "$here/Containerfile" -t "$tag" "$ctx" >/dev/null
log "hbase stage built in $(($(date +%s) - t1)) s"
# Images of earlier inputs only take space (vfs stores every layer whole).
"$engine" images --filter reference=localhost/hbkit/hbase --format '{{.Repository}}:{{.Tag}}' |
	while read -r old; do
		if [ "$old" != "$tag" ] && [ "$old" != "<none>:<none>" ]; then
			log "remove the outdated $old"
			"$engine" rmi "$old" >/dev/null 2>&1 || log "(still in use: $old kept)"
		fi
	done
echo "$tag"
