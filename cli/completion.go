package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/spf13/cobra"
)

const completionSummary = "print the shell completion script: bash, zsh, fish or powershell"

const completionUsage = `usage: hbkit completion bash|zsh|fish|powershell

Prints the script that completes hbkit's commands, subcommands and flags
in the shell named (cobra's, which calls back "hbkit __complete"). Install
it once:

  bash        hbkit completion bash > /etc/bash_completion.d/hbkit
              (or: source <(hbkit completion bash) in ~/.bashrc; needs the
              bash-completion package)
  zsh         hbkit completion zsh > "${fpath[1]}/_hbkit"
              (compinit must be on: autoload -U compinit; compinit)
  fish        hbkit completion fish > ~/.config/fish/completions/hbkit.fish
  powershell  hbkit completion powershell | Out-String | Invoke-Expression
              (in $PROFILE)

Flags:
`

// completionCommand is hbkit completion, which prints root's completion
// script.
func completionCommand(e *Env, root *cobra.Command) command {
	return command{name: "completion", summary: completionSummary, usage: text(completionUsage),
		bind: func() (*flag.FlagSet, runFunc) {
			return flag.NewFlagSet("hbkit completion", flag.ContinueOnError), func(_ context.Context, args []string) error {
				return e.completion(root, args)
			}
		}}
}

func (e *Env) completion(root *cobra.Command, args []string) error {
	if len(args) != 1 {
		fmt.Fprintf(e.Stderr, "%s completion: name one shell: bash, zsh, fish or powershell\n", e.name())
		return ErrUsage
	}
	switch args[0] {
	case "bash":
		return root.GenBashCompletionV2(e.Stdout, true)
	case "zsh":
		return root.GenZshCompletion(e.Stdout)
	case "fish":
		return root.GenFishCompletion(e.Stdout, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(e.Stdout)
	}
	fmt.Fprintf(e.Stderr, "%s completion: unknown shell %q: bash, zsh, fish or powershell\n", e.name(), args[0])
	return ErrUsage
}
