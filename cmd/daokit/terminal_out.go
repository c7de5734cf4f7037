package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/daokit/daokit/termsafe"
)

// annotDraws marks a command that draws on the terminal itself (the
// window): its output is its own escape sequences, never neutralized.
const annotDraws = "daokit_draws"

// guardOutput makes the command's stdout and stderr safe for a terminal:
// what daokit prints carries agent, worker and issue text (diffs,
// summaries, titles, reasons), and an escape sequence in it would move
// the cursor, erase lines, set the title or write the clipboard. On a
// terminal every such byte is shown as a visible escape (package
// termsafe); --raw keeps the bytes, and so does a pipe or a file, so
// that scripts read exactly what was recorded. It runs as the root's
// persistent pre-run, after the flags are parsed.
func (a *app) guardOutput(c *cobra.Command, _ []string) error {
	if a.raw || c.Annotations[annotDraws] != "" {
		return nil
	}
	if isTerminal(a.io.out) {
		w := termsafe.NewWriter(a.io.out)
		a.io.out, a.flushOut = w, w.Flush
		c.SetOut(w)
	}
	if isTerminal(a.io.err) {
		w := termsafe.NewWriter(a.io.err)
		a.io.err, a.flushErr = w, w.Flush
		c.SetErr(w)
	}
	return nil
}

// flushGuards writes what the guards still hold (the start of a
// character the output ended in).
func (a *app) flushGuards() {
	for _, flush := range []func() error{a.flushOut, a.flushErr} {
		if flush != nil {
			_ = flush()
		}
	}
}

// isTerminal reports whether w is a terminal of this process.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
