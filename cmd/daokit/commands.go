package main

import (
	"context"
	"strings"

	"github.com/daokit/daokit/i18n"
	"github.com/spf13/cobra"
)

// commandConstructors is the one place where commands are registered, in
// the order `daokit --help` lists them: the window first, then the Python
// DAOKit's commands in its order (init, check, run, status, replay,
// takeover, handoff, bundle, dashboard), then daokit's own.
//
// To add a command: write cmd/daokit/<name>.go with a constructor
//
//	func newNameCmd(a *app) *cobra.Command {
//		c := a.command("name", "cli.name.summary", runName) // runName(a, c, args)
//		c.Flags().Bool("json", false, "cli.flag.json")     // usages are message ids
//		return c
//	}
//
// add its message ids to i18n/locales/*.toml (English and Chinese), then
// add newNameCmd to this list. Flags are pflag (GNU style: anywhere, "--"
// ends them); help, usage errors and completion come from the definitions.
// Add the command to TestArgumentOrders (args_test.go) as well.
var commandConstructors = []func(a *app) *cobra.Command{
	newUICmd,
	newWatchCmd,
	newInitCmd,
	newCheckCmd,
	newRunCmd,
	newStatusCmd,
	newReplayCmd,
	newTakeoverCmd,
	newHandoffCmd,
	newBundleCmd,
	newDashboardCmd,
	newSendCmd,
	newControllerCmd,
	newWorkerCmd,
	newCompactCmd,
	newDiffCmd,
	newLogsCmd,
	newWorktreesCmd,
	newOutboxCmd,
	newLeadCmd,
	newHubCmd,
	newMirrorCmd,
	newWebhookCmd,
	newCompletionCmd,
}

// newRootCmd builds the whole command tree. The bare `daokit` opens the
// window, like `daokit ui`, with the same flags.
func (a *app) newRootCmd() *cobra.Command {
	root := a.windowCommand("daokit", "cli.help.intro", false)
	root.Args = a.rootArgs
	root.SuggestionsMinimumDistance = 2
	root.PersistentFlags().String("lang", "", "cli.flag.lang")
	a.defaultText(root.PersistentFlags(), "lang", "cli.flag.lang_default")
	root.PersistentFlags().BoolVar(&a.raw, "raw", false, "cli.flag.raw")
	// No command sets a PersistentPreRun of its own, so this one runs
	// for every command (cobra runs only the nearest).
	root.PersistentPreRunE = a.guardOutput
	_ = root.RegisterFlagCompletionFunc("lang", cobra.FixedCompletions(i18n.Supported(), cobra.ShellCompDirectiveNoFileComp))
	root.CompletionOptions.DisableDefaultCmd = true
	root.SilenceErrors, root.SilenceUsage = true, true
	help := a.newHelpCmd()
	root.SetHelpCommand(help)
	root.AddCommand(help) // cobra would add it only when executing
	for _, newCmd := range commandConstructors {
		root.AddCommand(newCmd(a))
	}
	a.localizeHelp(root)
	return root
}

func init() {
	// The order of commandConstructors is the order of the help.
	cobra.EnableCommandSorting = false
}

// execute runs the command tree on args.
func (a *app) execute(args []string) int {
	root := a.newRootCmd()
	args = expandPrefixes(root, args)
	root.SetArgs(args)
	if a.trap != nil && needsTrap(root, args) {
		var stop context.CancelFunc
		a.ctx, stop = a.trap(a.ctx)
		defer stop()
	}
	root.SetIn(a.io.in)
	root.SetOut(a.io.out)
	root.SetErr(a.io.err)
	if len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		a.localizeTree(root)
	}
	code := a.finish(root.ExecuteContext(a.ctx))
	a.flushGuards()
	return code
}

// newHelpCmd is `daokit help [command]`.
func (a *app) newHelpCmd() *cobra.Command {
	return quickRead(&cobra.Command{
		Use:   "help",
		Short: "cli.help.summary",
		Args:  cobra.ArbitraryArgs,
		Run: func(c *cobra.Command, args []string) {
			target, _, err := c.Root().Find(args)
			if err != nil || target == nil {
				target = c.Root()
			}
			a.help(target, nil)
		},
	})
}
