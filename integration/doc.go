// Package integration holds hbkit's integration harness and the tests that
// show how to use it. Nothing here is part of hbkit's API.
//
// The harness, package [github.com/hbkit/hbkit/integration/hbasetest], gives a
// test package a real HBase: in a container (through the hbasecontainer
// module's command) when a container engine is reachable, otherwise from
// the local launcher (tools/hbase), otherwise the one HBKIT_ZK names. The
// command hbasecontainer/cmd/hbase-container starts one container for a
// whole `go test ./...` run (tools/ci-containers.sh).
//
// testcontainers-go lives in module github.com/hbkit/hbkit/hbasecontainer,
// not in this module; library packages must not import anything below
// integration/.
package integration
