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
//  2. container: a container engine answers (DOCKER_HOST, or the default
//     socket testcontainers-go finds). The image is HBKIT_IMAGE, or the one
//     tools/image/build.sh builds (cached). The container runs on host
//     networking and advertises 127.0.0.1, on free loopback ports.
//  3. local: the local launcher (tools/hbase) can run here (Java 17 and Maven
//     installed): an HBase it already runs is used as it is, otherwise a
//     throwaway one is started on free ports in a temporary state directory.
//  4. zk: the HBase HBKIT_ZK names, started by someone else.
//
// Who should use it: tests in this repository and users' own integration
// tests of code built on hbkit. Who should not: library code; this package
// pulls in testcontainers-go and its dependencies.
package hbasetest
