// Package cli is hbkit's command line: the table, index, get, scan,
// count, simulate, regions, bench, version and completion commands, their
// flags, output and exit statuses, run by Main over any HBase client that
// implements Client.
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
// with its own schemas in Env.Schemas (found by --schema NAME before
// files), their workloads in Env.Workloads, or its own client in
// Env.Connect. cmd/hbkit
// registers the seeds' schemas the same way (seeds/seedcli):
//
//	e := cli.NativeEnv(os.Stdout, os.Stderr, os.Getenv)
//	e.Name = "mytool"
//	e.Schemas = map[string]schema.Definition{"readings": readings}
//	os.Exit(cli.Main(ctx, e, os.Args[1:]))
//
// Package clitest holds the scenarios both binaries share against a real
// HBase.
//
// # Adding a command
//
// The commands run on cobra (docs/cli-library.md); each is a command
// value made by a constructor in its own file, listed in commands
// (cli.go), or in the subs of table or index. The constructor gives the
// name, the one-line summary, the help text ("usage: hbkit NAME ...",
// ending with "Flags:") and bind, which returns the command's flags on a
// standard flag.FlagSet and the function that runs it with its arguments
// once they are parsed (regionsCommand is a short example):
//
//	func jobCommand(e *Env, connect connectFunc[Client]) command {
//		return command{name: "job", summary: "run a job over a table's regions", usage: text(jobUsage),
//			bind: func() (*flag.FlagSet, runFunc) {
//				var f jobFlags
//				fs := flag.NewFlagSet("hbkit job", flag.ContinueOnError)
//				fs.StringVar(&f.table, "table", "", "table `T`")
//				e.connectFlags(fs, &f.zk) // --zk, Kerberos, TLS: the connection group
//				fs.BoolVar(&f.json, "json", false, "print the report as JSON")
//				return fs, func(ctx context.Context, args []string) error { return e.job(ctx, f, args, connect) }
//			}}
//	}
//
// The run function returns ErrUsage after printing a usage error on
// e.Stderr (exit status 2), or the command's failure (exit status 1,
// printed by Main). Help, flag errors, --name and -name, and shell
// completion come from the tree; TestCLIDoc's transcript (docs/cli.md)
// picks the command up.
//
// # Who should not
//
// Programs that read and write data: they use the packages the commands
// are made of (dao, admin, sim, bench), not the text of a command line.
package cli
