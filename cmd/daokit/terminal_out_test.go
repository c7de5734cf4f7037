package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/daokit/daokit/internal/ptytest"
	"github.com/daokit/daokit/termsafe"
)

// onTerminal runs the CLI in-process with stdout and stderr on a
// pseudo-terminal and returns the bytes the terminal received.
func onTerminal(t *testing.T, args ...string) (string, int) {
	t.Helper()
	master, term := ptytest.Open(t)
	wait := ptytest.Drain(master)
	code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: term, err: term}, func(string) string { return "" }, nil)
	term.Close()
	out, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// An issue whose title carries escape sequences: on a terminal both the
// listing (stdout) and an error naming a hostile folder (stderr) show
// visible escapes; --raw and a pipe get the bytes as stored.
func TestTerminalGetsVisibleEscapes(t *testing.T) {
	t.Parallel()
	root := teamRoot(t)
	title := "登录 \x1b]52;c;aGk=\a\x1b[1A\x1b[2K\u202e修复"
	if r := runCLI(t, nil, "outbox", "new", "--root", root, title); r.code != 0 {
		t.Fatal(r.stderr)
	}
	out, code := onTerminal(t, "outbox", "list", "--root", root)
	if code != 0 || !strings.Contains(out, `登录 \x1b]52;c;aGk=\x07\x1b[1A\x1b[2K\u202e修复`) || strings.ContainsAny(out, "\x1b\a\u202e") {
		t.Fatalf("outbox list on a terminal: code %d %q", code, out)
	}
	raw, _ := onTerminal(t, "outbox", "list", "--root", root, "--raw")
	if piped := runCLI(t, nil, "outbox", "list", "--root", root); raw != piped.stdout || !strings.Contains(raw, title) {
		t.Fatalf("--raw on a terminal %q, piped %q", raw, piped.stdout)
	}
	// stderr is guarded too: a bad --root names the folder it was given.
	bad := filepath.Join(t.TempDir(), "x\x1b[2Jy")
	out, code = onTerminal(t, "status", "--root", bad)
	if code == 0 || !strings.Contains(out, `x\x1b[2Jy`) || strings.Contains(out, "\x1b") {
		t.Fatalf("status error on a terminal: code %d %q", code, out)
	}
}

// The window draws with its own escape sequences, so no guard wraps its
// output; every other command is guarded, which holds only while no
// command sets a persistent pre-run of its own (cobra runs only the
// nearest one).
func TestOnlyTheWindowDrawsRaw(t *testing.T) {
	t.Parallel()
	a := &app{io: stdio{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, getenv: os.Getenv}
	root := a.newRootCmd()
	var draws []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Annotations[annotDraws] != "" {
			draws = append(draws, c.Name())
		}
		if c != root && (c.PersistentPreRun != nil || c.PersistentPreRunE != nil) {
			t.Errorf("%s sets its own persistent pre-run: the output guard would not run", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if got := strings.Join(draws, " "); got != "daokit ui watch" {
		t.Errorf("commands that draw raw: %q, want the window's", got)
	}
}

// On a terminal a table measures a cell as shown: the column after a
// cell with visible escapes (and Chinese) still lines up.
func TestTableMeasuresVisibleEscapes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := termsafe.NewWriter(&buf)
	writeTable(w, "", []string{"title", "state"}, [][]string{{"修复\x1b[2K", "done"}, {"plain", "open"}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	col := -1
	for _, l := range lines {
		i := strings.LastIndex(l, "  ")
		if c := ansi.StringWidth(l[:i+2]); col >= 0 && c != col {
			t.Fatalf("columns do not line up:\n%s", buf.String())
		} else {
			col = c
		}
	}
	if !strings.Contains(buf.String(), `修复\x1b[2K  done`) {
		t.Fatalf("table: %q", buf.String())
	}
}
