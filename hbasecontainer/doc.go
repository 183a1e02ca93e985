// Package hbasecontainer runs Apache HBase 2.6 in a container for tests,
// in the style of the testcontainers-go modules:
//
//	ctr, err := hbasecontainer.Run(ctx, image)
//	if err != nil { ... }
//	defer ctr.Terminate(context.Background())
//	zk, err := ctr.ZK(ctx) // "127.0.0.1:41297", for hbase.New
//
// It is a Go module of its own (github.com/hbkit/hbkit/hbasecontainer),
// so testcontainers-go and the Docker client stay out of the graph of
// code that only imports hbkit's library. It needs no hbkit package.
//
// # Networking
//
// HBase hands its clients the host:port of its master and region server
// (in ZooKeeper and hbase:meta), so those must be addresses the test
// process can dial. Run picks three free host ports, publishes each on
// the same port number inside the container (127.0.0.1:P -> P), and has
// the servers listen on every container address while they advertise
// 127.0.0.1 (WithAdvertiseHost for an engine on another machine). No host
// networking is needed; WithHostNetwork gives it back for engines that
// cannot publish ports.
//
// # The image
//
// hbasecontainer/Dockerfile builds one, with the repository's root as its
// context and the jars fetched from Maven Central in the build:
//
//	docker build -t hbkit/hbase:2.6.4 -f hbasecontainer/Dockerfile .
//
// (docs/containers.md: from GitHub without a checkout, with podman, and
// how this repository builds it with no registry.) Run works with any
// image that honours this contract:
//
//   - it runs a standalone HBase (ZooKeeper, master and one region server)
//     in the foreground and logs to standard output;
//   - HBASE_ZK_PORT, HBASE_MASTER_PORT, HBASE_RS_PORT: the ports it listens
//     on (defaults 2181, 16000, 16020);
//   - HBASE_ADVERTISE_HOST: the host it publishes in ZooKeeper and
//     hbase:meta; HBASE_BIND_HOST: the address it listens on (default the
//     advertised host; Run sets 0.0.0.0 unless on host networking);
//   - HBASE_HEAP: the JVM heap (1g); HBASE_STATE: its state directory
//     (/var/lib/hbase), emptied on each start: no volume, nothing kept;
//   - readiness: the line "Master has completed initialization" (ReadyLine)
//     on its log, after which Run also waits until the published ZooKeeper
//     port accepts connections.
//
// Who should use it: integration tests of code built on hbkit (and of any
// HBase client). Who should not: library code.
package hbasecontainer
