package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFunc runs a command with its positional arguments, once its flags
// are parsed.
type runFunc func(ctx context.Context, args []string) error

// command is one hbkit command, or one subcommand of table and index.
// Adding one takes a value of it in commands (or in a parent's subs) and
// a constructor in the command's own file:
//
//	func jobCommand(e *Env) command {
//		return command{name: "job", summary: "...", usage: jobUsage,
//			bind: func() (*flag.FlagSet, runFunc) {
//				var f jobFlags
//				fs := jobFlagSet(e, &f) // flags, e.connectFlags(fs, &f.zk) among them
//				return fs, func(ctx context.Context, args []string) error { return e.job(ctx, f, args) }
//			}}
//	}
//
// The flags are those of the standard flag package; cobra parses them
// (pflag: --name and -name both work), prints the help from usage and the
// flags (connection flags apart, as a group), and completes them.
type command struct {
	name    string
	summary string // one line in its parent's list of commands
	// usage is the help text above the flags: "usage: hbkit NAME ..."
	// and what the command does, ending with "Flags:\n".
	usage func() string
	// bind returns the command's flags and what runs the command with
	// them. For a command with subs, only its flags are used: they are
	// what its help prints (its subcommands' shared flags).
	bind    func() (*flag.FlagSet, runFunc)
	subs    []command
	aliases []string // other names of the command ("list" for "ls")
}

// text returns a usage function that returns s.
func text(s string) func() string { return func() string { return s } }

// tree is the cobra command tree of one run of Main or Run.
type tree struct {
	e      *Env
	help   io.Writer // where help asked for goes
	helped bool      // a help text was printed
	ran    bool      // a command's runFunc ran
	names  map[string]bool
}

// build returns c as a cobra command; path is its name with its parents'
// ("table create").
func (t *tree) build(c command, path string) *cobra.Command {
	e := t.e
	cc := &cobra.Command{Use: c.name, Aliases: c.aliases, Short: c.summary, SilenceErrors: true, SilenceUsage: true}
	var fs *flag.FlagSet
	var run runFunc
	if c.bind != nil {
		e.security = nil
		fs, run = c.bind()
		sec := e.security // connectFlags sets it, per command: nil without
		fs.SetOutput(e.Stderr)
		fs.Usage = func() { e.printHelp(e.Stderr, c.usage(), fs) }
		cc.Flags().AddGoFlagSet(fs)
		cc.Flags().VisitAll(func(f *pflag.Flag) {
			t.names[f.Name] = true
			f.Usage = strings.ReplaceAll(f.Usage, "`", "") // for completion's descriptions
		})
		cc.RunE = func(cmd *cobra.Command, args []string) error {
			e.security, t.ran = sec, true
			return run(cmd.Context(), args)
		}
	}
	cc.SetHelpFunc(func(*cobra.Command, []string) {
		t.helped = true
		e.printHelp(t.help, c.usage(), fs)
	})
	cc.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		fmt.Fprintf(e.Stderr, "%s %s: %v\n", e.name(), path, flagError(err))
		e.printHelp(e.Stderr, c.usage(), fs)
		return ErrUsage
	})
	if len(c.subs) > 0 {
		cc.DisableFlagParsing = true // the group only dispatches
		cc.Args = cobra.ArbitraryArgs
		cc.RunE = func(_ *cobra.Command, args []string) error { return t.group(c, path, fs, args) }
		for _, s := range c.subs {
			cc.AddCommand(t.build(s, path+" "+s.name))
		}
	}
	return cc
}

// flagError words a flag the command does not define as the flag package
// did.
func flagError(err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	if short := ne.GetSpecifiedShortnames(); short != "" {
		return fmt.Errorf("flag provided but not defined: -%s", short)
	}
	return fmt.Errorf("flag provided but not defined: --%s", ne.GetSpecifiedName())
}

// group answers a command with subcommands (table, index) whose
// arguments name none: its help, or a usage error.
func (t *tree) group(c command, path string, fs *flag.FlagSet, args []string) error {
	e := t.e
	switch {
	case len(args) == 0:
		e.printHelp(e.Stderr, c.usage(), fs)
		return ErrUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help":
		t.helped = true
		e.printHelp(t.help, c.usage(), fs)
		return nil
	}
	fmt.Fprintf(e.Stderr, "%s %s: unknown subcommand %q\n", e.name(), path, args[0])
	e.printHelp(e.Stderr, c.usage(), fs)
	return ErrUsage
}

// root returns the cobra command tree of e's commands.
func (t *tree) root() *cobra.Command {
	e := t.e
	t.names = map[string]bool{}
	root := &cobra.Command{Use: e.name(), SilenceErrors: true, SilenceUsage: true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true}}
	root.SetHelpCommand(&cobra.Command{Use: "no-help-command", Hidden: true})
	root.SetHelpFunc(func(*cobra.Command, []string) {
		t.helped = true
		usage(t.help, e)
	})
	root.Args = func(_ *cobra.Command, args []string) error {
		if len(args) == 0 || args[0] == "help" {
			return nil
		}
		fmt.Fprintf(e.Stderr, "%s: unknown command %q\n", e.name(), args[0])
		usage(e.Stderr, e)
		return ErrUsage
	}
	root.RunE = func(_ *cobra.Command, args []string) error {
		usage(e.Stdout, e)
		if len(args) == 0 {
			return ErrUsage
		}
		return nil
	}
	for _, c := range commands(e) {
		root.AddCommand(t.build(c, c.name))
	}
	root.AddCommand(t.build(completionCommand(e, root), "completion"))
	root.SetOut(e.Stdout)
	root.SetErr(e.Stderr)
	return root
}

// execute runs args on the tree of e's commands, help asked for going to
// help. It returns flag.ErrHelp when a command's help was printed.
func execute(ctx context.Context, e *Env, args []string, help io.Writer) error {
	t := &tree{e: e, help: help}
	root := t.root()
	if len(args) > 1 && args[0] == "help" {
		args = append(args[1:len(args):len(args)], "--help")
	}
	root.SetArgs(t.longFlags(args))
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil && t.helped && len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		return flag.ErrHelp
	case err == nil, t.ran, errors.Is(err, ErrUsage):
		return err
	}
	// An error of cobra's own: a usage error.
	fmt.Fprintf(e.Stderr, "%s: %v\n", e.name(), err)
	return fmt.Errorf("%w: %v", ErrUsage, err)
}

// longFlags returns args with the long flags given with one dash
// (-table, as the flag package took them) given with two (--table), as
// pflag wants them, up to a "--".
func (t *tree) longFlags(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if t.names[name] || name == "help" {
			out[i] = "-" + a
		}
	}
	return out
}

// printHelp prints a command's help on w: its usage text, then the flags
// of fs (may be nil) with the connection flags apart.
func (e *Env) printHelp(w io.Writer, usage string, fs *flag.FlagSet) {
	if n := e.name(); n != "hbkit" {
		usage = strings.ReplaceAll(usage, "hbkit ", n+" ")
	}
	fmt.Fprint(w, usage)
	if fs != nil {
		e.printFlags(w, fs)
	}
}

// printDefaults prints the flags of fs as its PrintDefaults does, each
// spelled with two dashes.
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.PrintDefaults()
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if strings.HasPrefix(line, "  -") {
			line = "  --" + line[3:]
		}
		fmt.Fprint(w, line)
	}
}
