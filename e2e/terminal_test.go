package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/internal/ptytest"
)

// hostileFile is what a hostile agent writes: a line that, drawn raw,
// moves the cursor up and erases the line above it ("+visible line"),
// then a clipboard write (OSC 52) and a title change (OSC 2).
const hostileFile = "visible line\n+hidden\x1b[1A\x1b[2K\nsafe\n\x1b]52;c;b3duZWQ=\a\x1b]2;pwned\x1b\\\n"

// hostileSay is what the same agent prints on stdout: worker text that
// `send --wait` shows.
const hostileSay = "agent says \x1b]52;c;b3duZWQ=\a\x1b[2J done"

// hostileConfig is a daokit.toml whose lane writes hostileFile into its
// worktree and prints hostileSay, then runs the simulated agent there
// (which commits it with its own edit).
func hostileConfig(t *testing.T, project string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "hostile.sh")
	body := "printf '%s' '" + shellBytes(hostileFile) + "' > hostile.txt\nprintf '%s\\n' '" + shellBytes(hostileSay) + "'\nexec \"$DAOKIT\" worker sim --duration 1s --lines 4 -- \"$1\"\n"
	// printf %s prints its argument as it is: the script holds the raw
	// bytes in single quotes.
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(worktreeConfig(project, "1s"),
		`command = ["{daokit}", "worker", "sim", "--duration", "1s", "--lines", "8", "--", "{instruction}"]`,
		`command = ["env", "DAOKIT={daokit}", "sh", "`+script+`", "{instruction}"]`, 1)
}

// shellBytes quotes s for a single-quoted shell word (the bytes stay raw).
func shellBytes(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// onTerminal runs daokit with stdout and stderr on a new pseudo-terminal
// and returns every byte the terminal received.
func onTerminal(t *testing.T, args ...string) (string, int) {
	t.Helper()
	master, term := ptytest.Open(t)
	cmd := exec.Command(daokit, args...)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	cmd.Stdout, cmd.Stderr = term, term
	if err := cmd.Start(); err != nil {
		t.Fatalf("start daokit %v: %v", args, err)
	}
	term.Close()
	wait := ptytest.Drain(master)
	err := cmd.Wait()
	out, rerr := wait()
	if rerr != nil {
		t.Fatalf("read terminal: %v", rerr)
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run daokit %v: %v", args, err)
	}
	return string(out), code
}

// checkInert fails when out holds a byte a terminal would act on.
func checkInert(t *testing.T, what, out string) {
	t.Helper()
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == 0x9b || c == 0x9d {
			t.Errorf("%s sent byte %#x to the terminal at %d: %q", what, c, i, out[max(i-20, 0):min(i+20, len(out))])
			return
		}
	}
	if strings.Contains(out, "\u009b") || strings.Contains(out, "\u009d") {
		t.Errorf("%s sent a C1 control to the terminal: %q", what, out)
	}
}

// TestHostileAgentTextIsVisibleNotActedOn: an agent writes a file whose
// line erases the line above it on a terminal, clipboard and title
// writes, and prints the same on its stdout; the instruction carries a
// title change. Every command that shows that text to a terminal shows
// visible escapes and sends no control byte; --raw and pipes get the
// recorded bytes exactly.
func TestHostileAgentTextIsVisibleNotActedOn(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root := newRoot(t, hostileConfig(t, project))
	ctl := startController(t, root)
	defer ctl.stop()

	out, code := onTerminal(t, "send", "--root", root, "--wait", "fix it \x1b]2;title\a now")
	if code != 0 || !strings.Contains(out, `agent says \x1b]52;c;b3duZWQ=\x07\x1b[2J done`) || !strings.Contains(out, `fix it \x1b]2;title\x07 now`) {
		t.Fatalf("send --wait on a terminal: code %d\n%s", code, out)
	}
	checkInert(t, "send --wait", out)

	hidden := `+hidden\x1b[1A\x1b[2K`
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"diff"}, []string{"+visible line\n+" + hidden + "\n+safe\n", `+\x1b]52;c;b3duZWQ=\x07\x1b]2;pwned\x1b\`}},
		{[]string{"diff", "--stat"}, []string{"hostile.txt"}},
		{[]string{"status"}, []string{`Goal: fix it \x1b]2;title\x07 now`}},
		{[]string{"replay"}, nil},
		{[]string{"worktrees"}, []string{"kept: uncommitted changes"}},
	} {
		args := append(append([]string(nil), tc.args...), "--root", root)
		out, code := onTerminal(t, args...)
		if code != 0 {
			t.Errorf("%v on a terminal: code %d\n%s", tc.args, code, out)
		}
		checkInert(t, strings.Join(tc.args, " "), out)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v on a terminal lacks %q:\n%s", tc.args, w, out)
			}
		}
		// A pipe and --raw on a terminal get the bytes as recorded.
		piped := run(t, args...)
		if tc.args[0] == "status" {
			if raw, _ := onTerminal(t, append(args, "--raw")...); !strings.Contains(raw, "Goal: fix it \x1b]2;title\a now") {
				t.Errorf("status --raw lacks the goal's bytes:\n%q", raw)
			}
			continue // its times move between two runs
		}
		if raw, _ := onTerminal(t, append(args, "--raw")...); raw != piped.stdout {
			t.Errorf("%v --raw on a terminal differs from a pipe:\n%q\n%q", tc.args, raw, piped.stdout)
		}
	}
	if piped := run(t, "diff", "--root", root); !strings.Contains(piped.stdout, "+hidden\x1b[1A\x1b[2K\n") {
		t.Errorf("a piped diff is not byte for byte:\n%q", piped.stdout)
	}
	if out, _ := onTerminal(t, "diff", "--root", root, "--lang", "zh-CN", "--stat"); !strings.Contains(out, "hostile.txt") {
		t.Errorf("diff --stat in Chinese:\n%s", out)
	}
}

// TestHostileIssueTextIsVisibleNotActedOn: an issue whose title and body
// carry escape sequences is listed and shown with visible escapes.
func TestHostileIssueTextIsVisibleNotActedOn(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run(t, "init", "--root", root)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[team]\noutbox_root = \"team\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte("[roles.backend]\nrole_repo = \"repos/backend\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %+v", r)
	}
	if r := run(t, "outbox", "new", "--root", root, "--body", "copy \x1b]52;c;b3duZWQ=\a this", "login \x1b[2K\x1b[1Gfixed"); r.code != 0 {
		t.Fatalf("outbox new: %+v", r)
	}
	for _, args := range [][]string{{"outbox", "list"}, {"outbox", "show", "1"}} {
		out, code := onTerminal(t, append(args, "--root", root)...)
		if code != 0 || !strings.Contains(out, `login \x1b[2K\x1b[1Gfixed`) {
			t.Errorf("%v on a terminal: code %d\n%s", args, code, out)
		}
		if args[1] == "show" && !strings.Contains(out, `copy \x1b]52;c;b3duZWQ=\x07 this`) {
			t.Errorf("outbox show lacks the visible body:\n%s", out)
		}
		checkInert(t, strings.Join(args, " "), out)
		piped := run(t, append(args, "--root", root)...)
		if raw, _ := onTerminal(t, append(args, "--root", root, "--raw")...); raw != piped.stdout || !strings.Contains(raw, "login \x1b[2K\x1b[1Gfixed") {
			t.Errorf("%v --raw on a terminal is not the piped bytes:\n%q\n%q", args, raw, piped.stdout)
		}
	}
}

// TestHostileLineVisibleInDiffAndChangesView: in tmux, as a person sees
// it, `daokit diff` and the window's changes view (F3) show the hostile
// line's escapes and the line above it intact; `daokit diff --raw` lets
// the terminal erase it, which is what the default prevents.
func TestHostileLineVisibleInDiffAndChangesView(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root := newRoot(t, hostileConfig(t, project))
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("add a cache")
	win.waitFor(60*time.Second, "review the change", "has a change waiting for your review")
	if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "F3").CombinedOutput(); err != nil {
		t.Fatalf("send-keys F3: %v %s", err, out)
	}
	screen := win.waitFor(30*time.Second, "hostile.txt", "+visible line", `+hidden\x1b[1A\x1b[2K`, `\x1b]52;c;b3duZWQ=\x07\x1b]2;pwned\x1b\`)
	checkAbove(t, "changes view", screen)

	diff := openShell(t, daokit+" diff --root '"+root+"'; printf 'END\\n'; exec cat")
	screen = diff.waitFor(20*time.Second, "END")
	checkAbove(t, "daokit diff", screen)
	raw := openShell(t, daokit+" diff --raw --root '"+root+"'; printf 'END\\n'; exec cat")
	screen = raw.waitFor(20*time.Second, "END")
	if strings.Contains(screen, "+visible line") {
		t.Errorf("with --raw the terminal kept the line the escape erases; the test shows nothing:\n%s", screen)
	}
}

// checkAbove fails unless the screen shows the line above the hostile
// one, then the hostile one with its escapes visible.
func checkAbove(t *testing.T, what, screen string) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, `+hidden\x1b[1A\x1b[2K`) {
			if i == 0 || !strings.Contains(lines[i-1], "+visible line") {
				t.Errorf("%s: the line above the hostile one is not intact:\n%s", what, screen)
			}
			return
		}
	}
	t.Errorf("%s does not show the hostile line:\n%s", what, screen)
}

// openShell runs a shell command line in its own 160×48 tmux server.
func openShell(t *testing.T, line string) *screen {
	t.Helper()
	return openTmux(t, "sh -c "+quoteAll([]string{line})[0])
}
