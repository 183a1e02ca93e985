# private-hbase.sh is sourced by the scripts that test against an HBase of
# their own (test-restart.sh, test-rs3.sh, test-failover.sh,
# test-backup-master.sh). With HBKIT_STATE and the port
# variables already exported, private_hbase_up builds the launcher, starts
# a fresh instance with the given launcher flags while building the ./hbase
# integration test binary as "$tmp/hbase.test", exports HBKIT_ZK, and
# stops the instance (and a build still running) at exit.

launcher=bin/hbase-local

private_hbase_up() {
	go build -o "$launcher" ./tools/hbase
	tmp=$(mktemp -d)
	build= started=
	trap private_hbase_cleanup EXIT
	go test -race -tags integration -c -o "$tmp/hbase.test" ./hbase/ &
	build=$!
	started=1
	"$launcher" up -fresh "$@"
	wait "$build"
	build=
	HBKIT_ZK=$("$launcher" zk)
	export HBKIT_ZK
}

private_hbase_cleanup() {
	set +e
	[ -n "$build" ] && kill "$build" 2>/dev/null && wait "$build"
	[ -n "$started" ] && "$launcher" down
	rm -rf "$tmp"
}
