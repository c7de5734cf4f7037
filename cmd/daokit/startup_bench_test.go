package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// BenchmarkStartup is the CLI's own share of a command's start-up (after
// the Go runtime and package initialisation): the language, the command
// tree and parsing, here for `daokit --help` and a usage error, which do
// no I/O beyond printing.
func BenchmarkStartup(b *testing.B) {
	for _, args := range [][]string{{"--help"}, {"status", "--bogus"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			b.ReportAllocs()
			std := stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}
			getenv := func(string) string { return "" }
			for range b.N {
				run(context.Background(), args, std, getenv, nil)
			}
		})
	}
}
