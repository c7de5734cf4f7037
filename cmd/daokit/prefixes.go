package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// expandPrefixes spells out long options given by a unique prefix
// (`--task` for `--task-id`, `--lim=5`), as the Python tool's argparse
// accepts them, so that its users' command lines keep working. An exact
// name always wins; an ambiguous or unknown prefix is left as typed for
// the parser to report. Nothing after "--" is touched.
func expandPrefixes(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return args
	}
	names := flagNames(c)
	out := make([]string, 0, len(args))
	for i, arg := range args {
		if arg == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		if !strings.HasPrefix(arg, "--") || name == "" {
			out = append(out, arg)
			continue
		}
		if full := uniquePrefix(names, name); full != "" {
			arg = "--" + full
			if hasValue {
				arg += "=" + value
			}
		}
		out = append(out, arg)
	}
	return out
}

// exactOnly marks an option that no prefix abbreviates: daokit's own
// options beside the Python tool's (--hub, --root-id), so that a prefix
// its users type (`--ro` for `--root`) means what it meant there.
const exactOnly = "daokit_exact_only"

// flagNames lists the long names of every option c accepts that a prefix
// may abbreviate, its own and inherited ones, help included.
func flagNames(c *cobra.Command) []string {
	c.InitDefaultHelpFlag()
	var names []string
	collect := func(f *pflag.Flag) {
		if _, exact := f.Annotations[exactOnly]; !exact {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(collect)
	c.InheritedFlags().VisitAll(collect)
	return names
}

// prefixMatches returns the options of c that prefix abbreviates, each
// spelled with its dashes, in the order c lists them: several mean the
// prefix was ambiguous (argparse's "could match").
func prefixMatches(c *cobra.Command, prefix string) []string {
	var found []string
	for _, n := range flagNames(c) {
		if strings.HasPrefix(n, prefix) {
			found = append(found, "--"+n)
		}
	}
	return found
}

// uniquePrefix returns the one name that prefix abbreviates, or "" when
// prefix is a name itself, abbreviates none, or several.
func uniquePrefix(names []string, prefix string) string {
	found := ""
	for _, n := range names {
		switch {
		case n == prefix:
			return ""
		case strings.HasPrefix(n, prefix):
			if found != "" && found != n {
				return ""
			}
			found = n
		}
	}
	return found
}
