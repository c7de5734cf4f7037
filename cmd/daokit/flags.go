package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// flags is a flag.FlagSet whose help and errors speak the user's language.
// Usage strings passed to its methods are message ids.
type flags struct {
	*flag.FlagSet
	a       *app
	cmd     command
	argsID  string // message id describing positional arguments, if any
	visited map[string]bool
}

func (a *app) newFlags(c command) *flags {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &flags{FlagSet: fs, a: a, cmd: c}
	// --lang is handled before dispatch; registering it lets every
	// command accept it in any position.
	fs.String("lang", "", "cli.flag.lang")
	return f
}

// root registers the --root flag every ledger command takes.
func (f *flags) root() *string {
	return f.String("root", ".", "cli.flag.root")
}

// parse parses args and turns the flag package's English errors into a
// localized usage error (exit 2, like argparse).
func (f *flags) parse(args []string) error {
	err := f.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		f.printHelp()
		return flag.ErrHelp
	}
	if err != nil {
		return usageError(f.a.t("cli.error.usage", "Command", f.Name(), "Detail", f.translate(err)))
	}
	f.visited = map[string]bool{}
	f.Visit(func(fl *flag.Flag) { f.visited[fl.Name] = true })
	if f.argsID == "" && f.NArg() > 0 {
		return usageError(f.a.t("cli.error.usage", "Command", f.Name(),
			"Detail", f.a.t("cli.error.unexpected_args", "Args", strings.Join(f.Args(), " "))))
	}
	return nil
}

// set reports whether the flag was given on the command line.
func (f *flags) set(name string) bool { return f.visited[name] }

func (f *flags) translate(err error) string {
	msg := err.Error()
	for _, p := range []struct{ prefix, id string }{
		{"flag provided but not defined: ", "cli.error.flag_unknown"},
		{"flag needs an argument: ", "cli.error.flag_needs_value"},
		{"bad flag syntax: ", "cli.error.flag_syntax"},
	} {
		if rest, ok := strings.CutPrefix(msg, p.prefix); ok {
			return f.a.t(p.id, "Flag", rest)
		}
	}
	if strings.HasPrefix(msg, "invalid value ") || strings.HasPrefix(msg, "invalid boolean value ") {
		// invalid value "x" for flag -limit: parse error
		name := msg
		if i := strings.Index(msg, " for flag "); i >= 0 {
			name = msg[i+len(" for flag "):]
			if j := strings.Index(name, ":"); j >= 0 {
				name = name[:j]
			}
		}
		value := ""
		if i, j := strings.Index(msg, `"`), strings.LastIndex(msg[:max(strings.Index(msg, " for flag "), 0)], `"`); i >= 0 && j > i {
			value = msg[i+1 : j]
		}
		return f.a.t("cli.error.flag_value", "Flag", name, "Value", value)
	}
	return msg
}

func (f *flags) printHelp() {
	w := f.a.io.out
	usage := "daokit " + f.Name() + " [" + f.a.t("cli.help.options") + "]"
	if f.argsID != "" {
		usage += " " + f.a.t(f.argsID)
	}
	fmt.Fprintln(w, f.a.t("cli.help.usage", "Usage", usage))
	fmt.Fprintln(w)
	fmt.Fprintln(w, f.a.t(f.cmd.summary))
	fmt.Fprintln(w)
	fmt.Fprintln(w, f.a.t("cli.help.options_title"))
	f.VisitAll(func(fl *flag.Flag) {
		name := "--" + fl.Name
		if _, isBool := fl.Value.(interface{ IsBoolFlag() bool }); !isBool {
			name += " " + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		}
		line := fmt.Sprintf("  %-28s %s", name, f.a.t(fl.Usage))
		if fl.DefValue != "" && fl.DefValue != "false" && fl.Name != "lang" {
			line += " " + f.a.t("cli.help.default", "Value", fl.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

// selfPath is the running binary, used to start daokit children.
func selfPath() string {
	p, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return p
}
