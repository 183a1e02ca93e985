// Package hbasetest gives integration tests a real HBase 2.6, started for the
// test binary and stopped when it ends.
//
// Use it from TestMain; the tests then read HBKIT_ZK, as every hbkit
// integration test does, so the same suite runs against each kind of HBase:
//
//	func TestMain(m *testing.M) { os.Exit(hbasetest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		c, err := hbase.New(ctx, hbasetest.ZK(t))
//		...
//	}
//
// Where the HBase comes from (see [Choose]):
//
//  1. HBKIT_HBASE=container|local|zk forces a mode.
//  2. container: a container engine answers on DOCKER_HOST's unix socket
//     (or /var/run/docker.sock). The image is HBKIT_IMAGE, or the one
//     tools/image/build.sh builds (cached). The container is started by
//     the command of module github.com/hbkit/hbkit/hbasecontainer (its
//     own go.mod, with testcontainers-go) on published free ports.
//  3. local: the local launcher (tools/hbase) can run here (Java 17 and Maven
//     installed): an HBase it already runs is used as it is, otherwise a
//     throwaway one is started on free ports in a temporary state directory.
//  4. zk: the HBase HBKIT_ZK names, started by someone else.
//
// Who should use it: tests in this repository. Users' own integration
// tests use package github.com/hbkit/hbkit/hbasecontainer, which needs no
// checkout. Who should not: library code.
package hbasetest
