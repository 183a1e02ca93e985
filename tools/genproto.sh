#!/usr/bin/env bash
# genproto.sh regenerates the Go protobuf code in internal/pb from proto/hbkit/*.proto.
#
#   tools/genproto.sh           regenerate internal/pb/*.pb.go in place
#   tools/genproto.sh --check   regenerate into a temp dir; exit 1 if the
#                               committed internal/pb/*.pb.go differ
#
# Pinned toolchain, so the output is byte-for-byte reproducible:
#   protoc         3.21.12 (Debian bookworm's protobuf-compiler; installed with
#                  apt-get when protoc is missing)
#   protoc-gen-go  v1.36.12 (go install'ed into $(go env GOPATH)/bin, or
#                  $HBKIT_GOBIN if set, when missing or of another version)
set -euo pipefail

readonly PROTOC_VERSION="3.21.12"
readonly PROTOC_GEN_GO_VERSION="v1.36.12"

usage() {
	echo "usage: $0 [--check]" >&2
	exit 2
}

mode=generate
case "${1:-}" in
"") ;;
--check) mode=check ;;
-h | --help) usage ;;
*) usage ;;
esac
[[ $# -le 1 ]] || usage

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

log() { echo "genproto: $*" >&2; }

ensure_protoc() {
	if ! command -v protoc >/dev/null 2>&1; then
		log "protoc not found; installing Debian's protobuf-compiler"
		local sudo=()
		if [[ "$(id -u)" != 0 ]]; then
			command -v sudo >/dev/null 2>&1 || {
				log "not root and no sudo: install protobuf-compiler ${PROTOC_VERSION} yourself"
				exit 1
			}
			sudo=(sudo)
		fi
		"${sudo[@]}" apt-get update -qq
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq protobuf-compiler >/dev/null
	fi
	local got
	got="$(protoc --version | awk '{print $2}')"
	if [[ "$got" != "$PROTOC_VERSION" ]]; then
		log "protoc $got found, want $PROTOC_VERSION (generated headers would differ)"
		exit 1
	fi
}

ensure_protoc_gen_go() {
	local gobin="${HBKIT_GOBIN:-$(go env GOPATH)/bin}"
	local bin="$gobin/protoc-gen-go"
	if [[ ! -x "$bin" ]] || [[ "$("$bin" --version 2>/dev/null | awk '{print $2}')" != "$PROTOC_GEN_GO_VERSION" ]]; then
		log "installing protoc-gen-go $PROTOC_GEN_GO_VERSION into $gobin"
		mkdir -p "$gobin"
		GOBIN="$gobin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION}"
	fi
	PROTOC_GEN_GO="$bin"
}

# generate OUTDIR writes one .pb.go per proto/hbkit/*.proto into OUTDIR.
# The files are compiled as hbkit/NAME.proto, in the protobuf package
# hbkit.internal.pb: the paths and full names they register cannot clash
# with another HBase client's (gohbase registers NAME.proto in package pb).
generate() {
	local out="$1"
	local files=()
	while IFS= read -r f; do files+=("hbkit/$f"); done < <(cd proto/hbkit && LC_ALL=C ls -1 -- *.proto)
	protoc \
		--plugin=protoc-gen-go="$PROTOC_GEN_GO" \
		--proto_path=proto \
		--go_out="$out" \
		--go_opt=paths=source_relative \
		"${files[@]}"
	mv "$out"/hbkit/*.pb.go "$out"/
	rmdir "$out/hbkit"
}

ensure_protoc
ensure_protoc_gen_go

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
generate "$tmp"

if [[ "$mode" == check ]]; then
	status=0
	# Same set of files, same bytes.
	diff <(cd "$tmp" && LC_ALL=C ls -1 -- *.pb.go) \
		<(cd internal/pb && LC_ALL=C ls -1 -- *.pb.go 2>/dev/null) >/dev/null || {
		log "the set of generated files in internal/pb differs from proto/hbkit/"
		status=1
	}
	for f in "$tmp"/*.pb.go; do
		name="$(basename "$f")"
		if ! cmp -s "$f" "internal/pb/$name"; then
			log "internal/pb/$name is out of date"
			status=1
		fi
	done
	if [[ $status != 0 ]]; then
		log "run tools/genproto.sh and commit the result"
		exit 1
	fi
	log "internal/pb is up to date"
	exit 0
fi

mkdir -p internal/pb
rm -f internal/pb/*.pb.go
cp "$tmp"/*.pb.go internal/pb/
log "generated $(ls "$tmp" | wc -l) files into internal/pb"
