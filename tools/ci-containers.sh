#!/usr/bin/env bash
# ci-containers.sh runs the whole integration suite once against an HBase in
# a container started through testcontainers-go (the container path of
# issue 9).
#
#   tools/ci-containers.sh           everything below
#   tools/ci-containers.sh setup     only install and configure podman
#
# 1. Without DOCKER_HOST: install podman, runc and debootstrap if missing,
#    configure podman for this kind of machine (runc, cgroupfs, vfs storage,
#    default ulimits below the hard limits) unless the machine already has its
#    own configuration, and serve the Docker API on a unix socket for the
#    length of the run. With DOCKER_HOST set, that engine is used as it is
#    (a developer's Docker).
# 2. Build the HBase image of hbasecontainer/Dockerfile (tools/image/build.sh;
#    cached, a no-op when its inputs did not change).
# 3. Start HBase in a container through testcontainers-go
#    (hbasecontainer/cmd/hbase-container, of the hbasecontainer module), on
#    published ports (the same numbers inside), advertising 127.0.0.1;
#    HBKIT_HOST_NETWORK=1 runs it on host networking instead.
# 4. go test -tags integration with HBKIT_ZK pointing at it, on
#    CONTAINER_PKGS (default ./integration/... ./examples/...;
#    ./... for every package), without -race: make test runs every package
#    with it.
# 5. Stop the container and the API service, also on failure.
#
# Ports: HBKIT_ZK_PORT / HBKIT_MASTER_PORT / HBKIT_RS_PORT (default: free
# loopback ports, so a local HBase on 2181/16000/16020 is left alone).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { printf '\n== containers: %s  [%ds]\n' "$*" $(($(date +%s) - t0)); }

marker='# written by hbkit tools/ci-containers.sh'
sock=${HBKIT_PODMAN_SOCKET:-/run/hbkit-podman.sock}

# write_conf FILE CONTENT writes FILE unless it exists and is not ours.
write_conf() {
	if [ -e "$1" ] && ! grep -qF "$marker" "$1"; then
		echo "containers: keeping the existing $1 (not written by this script)"
		return
	fi
	printf '%s\n%s\n' "$marker" "$2" >"$1"
}

setup_podman() {
	local need=()
	command -v podman >/dev/null || need+=(podman)
	command -v runc >/dev/null || need+=(runc)
	command -v debootstrap >/dev/null || need+=(debootstrap)
	command -v curl >/dev/null || need+=(curl)
	command -v zip >/dev/null || need+=(zip)
	if [ ${#need[@]} -gt 0 ]; then
		echo "apt-get install ${need[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	fi
	mkdir -p /etc/containers
	# crun fails on hybrid cgroups here; systemd is not PID 1; the default
	# nofile/nproc limits of podman are above this machine's hard limits.
	write_conf /etc/containers/containers.conf '[containers]
default_ulimits = ["nofile=10000:10000", "nproc=10000:10000"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"'
	write_conf /etc/containers/storage.conf '[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"'
	podman version --format 'podman {{.Client.Version}}'
}

if [ "${1:-}" = setup ]; then
	setup_podman
	exit 0
fi

service_pid=
container_pid=
test_pid=
cleanup() {
	local rc=$?
	if [ -n "$test_pid" ]; then
		kill -TERM "$test_pid" 2>/dev/null || true
		wait "$test_pid" 2>/dev/null || true
	fi
	if [ -n "$container_pid" ] && kill -0 "$container_pid" 2>/dev/null; then
		kill -TERM "$container_pid" 2>/dev/null || true
		wait "$container_pid" 2>/dev/null || true
	fi
	if [ -n "$service_pid" ]; then
		kill -TERM "$service_pid" 2>/dev/null || true
		wait "$service_pid" 2>/dev/null || true
		rm -f "$sock"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -z "${DOCKER_HOST:-}" ]; then
	step "podman: install, configure, serve the Docker API on $sock"
	setup_podman
	rm -f "$sock"
	podman system service --time=0 "unix://$sock" &
	service_pid=$!
	export DOCKER_HOST=unix://$sock
	# Build with the podman CLI into the storage this service serves.
	export HBKIT_ENGINE=podman
	for _ in $(seq 50); do
		[ -S "$sock" ] && curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 && break
		sleep 0.2
	done
	curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null || { echo "containers: the podman API service did not come up" >&2; exit 1; }
fi
# The Ryuk reaper image cannot be pulled here; this script terminates what it
# starts itself.
export TESTCONTAINERS_RYUK_DISABLED=${TESTCONTAINERS_RYUK_DISABLED:-true}
echo "DOCKER_HOST=$DOCKER_HOST"

step "build the HBase image (cached)"
s=$(date +%s)
if [ -n "${HBKIT_IMAGE:-}" ]; then
	image=$HBKIT_IMAGE
	echo "HBKIT_IMAGE is set: running $image, building nothing"
else
	image=$(tools/image/build.sh)
fi
# The harness of packages that start their own container runs it too.
export HBKIT_IMAGE=$image
echo "image $image ready in $(($(date +%s) - s)) s"

step "start HBase in a container through testcontainers-go"
mkdir -p bin
(cd hbasecontainer && go build -o ../bin/hbase-container ./cmd/hbase-container)
env_file=$(mktemp)
host_net=()
[ -n "${HBKIT_HOST_NETWORK:-}" ] && host_net=(-host-network)
bin/hbase-container -image "$image" -env "$env_file" "${host_net[@]}" &
container_pid=$!
for _ in $(seq 600); do
	[ -s "$env_file" ] && break
	kill -0 "$container_pid" 2>/dev/null || { echo "containers: HBase did not start" >&2; exit 1; }
	sleep 0.5
done
# shellcheck disable=SC1090
. "$env_file"
rm -f "$env_file"
export HBKIT_ZK
echo "HBKIT_ZK=$HBKIT_ZK"

# The packages that prove the container path: the integration package
# (hbasetest.Main gives it a container of its own) and the examples, the
# code a user's own tests run; the scratch module below proves the path
# from outside the checkout. make test runs every package, with the
# race detector, against the launcher's HBase on the same code;
# CONTAINER_PKGS=./... runs them all here too.
pkgs=${CONTAINER_PKGS:-./integration/... ./examples/...}
step "go test -tags integration $pkgs against the container"
# Without the race detector by default: this run proves the container path,
# and `make test` has already run the same tests with it on the same code
# (TEST_FLAGS=-race... puts it back). In the background, so a SIGTERM to
# this script is handled (traps wait for foreground commands) and the
# cleanup below runs.
# shellcheck disable=SC2086
go test ${TEST_FLAGS:--count=1 -timeout 30m} -tags integration $pkgs &
test_pid=$!
wait "$test_pid"
test_pid=

step "stop the container"
kill -TERM "$container_pid"
wait "$container_pid"
container_pid=

# The module users import for their own container tests, and a module
# outside the checkout using it at a released version (issue 36).
step "the hbasecontainer module: vet and unit tests"
(cd hbasecontainer && go vet ./... && go vet -tags integration ./... && go test -count=1 ./...)
if [ "${HBKIT_SCRATCH:-1}" != 0 ]; then
	step "a scratch module outside the checkout: hbkit and hbasecontainer at a released version, a store round trip (tools/scratch-module.sh)"
	tools/scratch-module.sh
fi
step "container path passed"
