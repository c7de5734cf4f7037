package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Annotations carried by commands and flags. Command summaries and flag
// usages hold message ids; they are translated when help is shown, so a
// command that does not show help never renders its catalog entries.
const (
	// annotDefault on a flag is the message id of its default as a person
	// reads it, when the flag's zero value is not the default itself
	// ("this process's pid", "from daokit.toml"). The message gets the
	// flag's default value as {{.Value}}.
	annotDefault = "daokit_default"
	// annotArgs on a command is the message id of its positional
	// arguments in the usage line.
	annotArgs = "daokit_args"
)

// command builds a leaf command: summary is a message id, and run gets
// the positional arguments. By default it takes none.
func (a *app) command(name, summary string, run func(c *cobra.Command, args []string) error) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: summary,
		Args:  a.noArgs,
		RunE:  run,
	}
}

// group builds a command that only holds subcommands: run alone, or with
// a name none of them has, it answers with a usage error (missingID, or
// unknownID given the name).
func (a *app) group(name, summary, missingID, unknownID string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: summary,
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return a.usage(c, a.t(missingID))
			}
			return a.usage(c, a.t(unknownID, "Name", args[0]))
		},
	}
}

// takesArgs declares that c takes positional arguments, described by the
// message id argsID in its usage line.
func takesArgs(c *cobra.Command, argsID string) {
	c.Args = cobra.ArbitraryArgs
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotArgs] = argsID
}

// defaultText sets the message id that shows flag name's default.
func (a *app) defaultText(fs *pflag.FlagSet, name, id string) {
	_ = fs.SetAnnotation(name, annotDefault, []string{id})
}

// noArgs refuses positional arguments with a usage error (exit 2).
func (a *app) noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return a.usage(c, a.t("cli.error.unexpected_args", "Args", strings.Join(args, " ")))
	}
	return nil
}

// rootArgs: the bare `daokit` takes no arguments, so one is a mistyped
// command; the closest ones are suggested.
func (a *app) rootArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := a.t("cli.error.unknown_command", "Name", args[0])
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n" + a.t("cli.error.did_you_mean", "Names", strings.Join(s, ", "))
	}
	return &cliError{msg: msg, exit: exitUsage}
}

// usage is a usage error of command c: "daokit c: error: …", exit 2.
func (a *app) usage(c *cobra.Command, detail string) error {
	// The whole path: the bare daokit (the window) is "daokit", not "daokit daokit".
	return usageError(a.t("cli.error.usage", "Command", c.CommandPath(), "Detail", detail))
}

// flagError turns pflag's English parse errors into a usage error in the
// reader's language, with the flag as it was typed.
func (a *app) flagError(c *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		needs    *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	var detail string
	switch {
	case errors.As(err, &notExist):
		typed := "--" + notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			typed = "-" + s
		}
		detail = a.t("cli.error.flag_unknown", "Flag", typed)
		// expandPrefixes left a prefix of several options as typed.
		if m := prefixMatches(c, notExist.GetSpecifiedName()); notExist.GetSpecifiedShortnames() == "" && len(m) > 1 {
			detail = a.t("cli.error.flag_ambiguous", "Flag", typed, "Matches", strings.Join(m, ", "))
		}
	case errors.As(err, &needs):
		typed := "--" + needs.GetSpecifiedName()
		if s := needs.GetSpecifiedShortnames(); s != "" {
			typed = "-" + s
		}
		detail = a.t("cli.error.flag_needs_value", "Flag", typed)
	case errors.As(err, &invalid):
		detail = a.t("cli.error.flag_value", "Flag", "--"+invalid.GetFlag().Name, "Value", invalid.GetValue())
	case errors.As(err, &syntax):
		detail = a.t("cli.error.flag_syntax", "Flag", syntax.GetSpecifiedFlag())
	default:
		detail = err.Error()
	}
	return a.usage(c, detail)
}

// help prints a command's help in the reader's language: the usage line,
// the summary, the subcommands, the options with each default once, and
// the options every command accepts.
func (a *app) help(c *cobra.Command, _ []string) {
	w := c.OutOrStdout()
	if !c.HasParent() {
		fmt.Fprintln(w, a.t("cli.help.intro"))
		fmt.Fprintln(w)
		fmt.Fprintln(w, a.t("cli.help.usage_main"))
	} else {
		usage := c.CommandPath()
		if c.HasAvailableSubCommands() {
			usage += " " + a.t("cli.help.command")
		}
		usage += " [" + a.t("cli.help.options") + "]"
		if id := c.Annotations[annotArgs]; id != "" {
			usage += " " + a.t(id)
		}
		fmt.Fprintln(w, a.t("cli.help.usage", "Usage", usage))
		fmt.Fprintln(w)
		fmt.Fprintln(w, a.t(c.Short))
		if c.Long != "" {
			// A message id, as Short is: what the command does, at length.
			fmt.Fprintln(w)
			fmt.Fprintln(w, a.t(c.Long))
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintln(w)
		fmt.Fprintln(w, a.t("cli.help.commands"))
		var rows [][2]string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				rows = append(rows, [2]string{sub.Name(), a.t(sub.Short)})
			}
		}
		writeColumns(w, rows)
	}
	// The root's persistent --lang and every -h are listed last.
	if rows := a.flagRows(c, ownFlags); len(rows) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, a.t("cli.help.options_title"))
		writeColumns(w, rows)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, a.t("cli.help.global"))
	writeColumns(w, a.flagRows(c, globalFlags))
	if !c.HasParent() {
		fmt.Fprintln(w)
		fmt.Fprintln(w, a.t("cli.help.more"))
	}
}

// Which flags flagRows lists.
const (
	ownFlags    = iota // the command's own, in the order they were defined
	globalFlags        // --lang and -h/--help, which every command takes
)

// flagRows renders c's flags of one kind as a name and a text column.
func (a *app) flagRows(c *cobra.Command, kind int) [][2]string {
	var rows [][2]string
	c.InitDefaultHelpFlag()
	fs := c.Flags()
	fs.SortFlags = false
	inherited := c.InheritedFlags()
	fs.VisitAll(func(f *pflag.Flag) {
		global := f.Name == "help" || inherited.Lookup(f.Name) != nil || c.PersistentFlags().Lookup(f.Name) != nil
		if f.Hidden || global != (kind == globalFlags) {
			return
		}
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		if f.NoOptDefVal == "" {
			name += " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		}
		rows = append(rows, [2]string{name, a.flagText(f)})
	})
	return rows
}

// flagText is a flag's usage followed by its default, shown once.
func (a *app) flagText(f *pflag.Flag) string {
	text := a.t(f.Usage)
	if f.Name == "help" {
		text = a.t("cli.flag.help")
	}
	def := ""
	if ids := f.Annotations[annotDefault]; len(ids) > 0 {
		def = a.t(ids[0], "Value", f.DefValue)
	} else if !zeroDefault(f) {
		def = f.DefValue
	}
	if def != "" {
		// The message holds its own separator: a space in English,
		// none before Chinese full-width brackets.
		text += a.t("cli.help.default", "Value", def)
	}
	return text
}

// zeroDefault reports a default not worth showing: false, 0, "", [].
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]", "0s":
		return true
	}
	return false
}

// writeColumns prints two columns, the first as wide as its longest entry,
// so that long flag names never break the alignment.
func writeColumns(w io.Writer, rows [][2]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r[0], r[1])
	}
}

// localizeHelp installs the translated help and flag errors on the tree.
func (a *app) localizeHelp(root *cobra.Command) {
	root.SetHelpFunc(a.help)
	root.SetFlagErrorFunc(a.flagError)
}

// localizeTree replaces every summary and flag usage (message ids) by its
// text, for shell completion, which shows them as descriptions.
func (a *app) localizeTree(c *cobra.Command) {
	c.Short = a.t(c.Short)
	c.InitDefaultHelpFlag()
	for _, fs := range []*pflag.FlagSet{c.LocalNonPersistentFlags(), c.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) { f.Usage = a.flagText(f) })
	}
	for _, sub := range c.Commands() {
		a.localizeTree(sub)
	}
}
