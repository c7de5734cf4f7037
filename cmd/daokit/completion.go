package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// completionShells are the shells `daokit completion` writes a script for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// newCompletionCmd is `daokit completion SHELL`: it prints the shell's
// completion script, made by cobra from the command definitions (the
// descriptions come in the reader's language; see localizeTree).
func newCompletionCmd(a *app) *cobra.Command {
	c := quickRead(a.command("completion", "cli.completion.summary", nil))
	takesArgs(c, "cli.completion.args")
	c.ValidArgs = completionShells
	c.Args = func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return a.usage(c, a.t("cli.completion.error.shell", "Shells", strings.Join(completionShells, ", ")))
		}
		return nil
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		root, out := c.Root(), c.OutOrStdout()
		switch args[0] {
		case "bash":
			return root.GenBashCompletionV2(out, true)
		case "zsh":
			return root.GenZshCompletion(out)
		case "fish":
			return root.GenFishCompletion(out, true)
		case "powershell":
			return root.GenPowerShellCompletionWithDesc(out)
		}
		return a.usage(c, a.t("cli.completion.error.shell", "Shells", strings.Join(completionShells, ", ")))
	}
	return c
}
