// Package seedcli registers the seeds in the hbkit commands (package cli)
// through the same fields of cli.Env a team fills with its own schemas:
// their tables and index tables in Env.Schemas (table, get, scan, index),
// and their generated workloads in Env.Workloads (simulate, regions
// --compare-schema).
//
// # Who should use it
//
// cmd/hbkit, contrib/gohbase's hbkit-gohbase and cli/clitest: the
// binaries that ship the seeds.
//
// # Who should not
//
// A team's own binary that does not want the seeds' names: register its
// schemas instead.
package seedcli
