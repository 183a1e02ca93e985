# private-hbase.sh is sourced by the scripts that test against an HBase of
# their own (test-restart.sh, test-rs3.sh, test-failover.sh,
# test-backup-master.sh, test-stall.sh). With HBKIT_STATE and the port
# variables already exported, private_hbase_up builds the launcher, starts
# a fresh instance with the given launcher flags while building the
# integration test binaries of the packages in PRIVATE_HBASE_TESTS
# (default: hbase) as "$tmp/<package>.test", exports HBKIT_ZK, and stops
# the instance (and builds still running) at exit; private_hbase_run runs
# one test of such a binary.

launcher=bin/hbase-local

private_hbase_up() {
	go build -o "$launcher" ./tools/hbase
	tmp=$(mktemp -d)
	builds= started=
	trap private_hbase_cleanup EXIT
	local pkg b
	for pkg in ${PRIVATE_HBASE_TESTS:-hbase}; do
		go test -race -tags integration -c -o "$tmp/$pkg.test" "./$pkg/" &
		builds="$builds $!"
	done
	started=1
	"$launcher" up -fresh "$@"
	for b in $builds; do
		wait "$b"
	done
	builds=
	HBKIT_ZK=$("$launcher" zk)
	export HBKIT_ZK
}

private_hbase_cleanup() {
	set +e
	local b
	for b in $builds; do
		kill "$b" 2>/dev/null && wait "$b"
	done
	[ -n "$started" ] && "$launcher" down
	rm -rf "$tmp"
}

# private_hbase_run SCRIPT PACKAGE TEST TIMEOUT runs TEST of PACKAGE's
# binary (built by private_hbase_up) in PACKAGE's directory, verbosely,
# then says how long it took, as SCRIPT.
private_hbase_run() {
	local t0=$SECONDS
	(cd "$2" && "$tmp/$2.test" -test.count=1 -test.timeout="$4" -test.v -test.run="^$3\$") || return
	echo "$1: $3 passed in $((SECONDS - t0))s"
}
