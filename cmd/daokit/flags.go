package main

import (
	"os"

	"github.com/spf13/pflag"
)

// rootFlag registers the --root flag every ledger command takes.
func rootFlag(fs *pflag.FlagSet) *string {
	return fs.String("root", ".", "cli.flag.root")
}

// selfPath is the running binary, used to start daokit children.
func selfPath() string {
	p, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return p
}
