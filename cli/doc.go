// Package cli is hbkit's command line: the table, index, get, scan,
// simulate, regions, bench and version commands, their flags, output and exit
// statuses, run by Main over any HBase client that implements Client.
//
// cmd/hbkit runs it over hbkit's native client (NativeEnv);
// contrib/gohbase's hbkit-gohbase runs it over a gohbase client through
// the gohbase adapter. A client that cannot make some calls says so
// (errors.ErrUnsupported, and Limited up front), and the commands that
// need them fail with an *UnsupportedError naming the call before they
// change anything.
//
// # Who should use it
//
// Every command that needs a schema reads the schema document stored
// with the table --table names (schema.DocumentAttribute), so a team's
// tables need no binary of their own; --schema NAME and --schema-file
// FILE take precedence (docs/cli-documents.md).
//
// A team that builds its own hbkit binary: its main is cmd/hbkit's,
// with its own schemas in Env.Schemas (found by --schema NAME before the
// built-in ones) or its own client in Env.Connect:
//
//	e := cli.NativeEnv(os.Stdout, os.Stderr, os.Getenv)
//	e.Name = "mytool"
//	e.Schemas = map[string]schema.Definition{"readings": readings}
//	os.Exit(cli.Main(ctx, e, os.Args[1:]))
//
// Package clitest holds the scenarios both binaries share against a real
// HBase.
//
// # Who should not
//
// Programs that read and write data: they use the packages the commands
// are made of (dao, admin, sim, bench), not the text of a command line.
package cli
