// Package cli is hbkit's command line: the table, index, get, scan,
// simulate, regions, bench and version commands, their flags, output and exit
// statuses, run by Main over any HBase client that implements Client.
//
// cmd/hbkit runs it over hbkit's native client (ConnectNative);
// contrib/gohbase's hbkit-gohbase runs it over a gohbase client through
// the gohbase adapter. A client that cannot make some calls says so
// (errors.ErrUnsupported, and Limited up front), and the commands that
// need them fail with an *UnsupportedError naming the call before they
// change anything.
//
// # Who should use it
//
// The two binaries, and their tests (package clitest holds the scenarios
// they share against a real HBase). It is internal: programs should use
// the packages the commands are made of (admin, dao, index, sim, bench).
package cli
