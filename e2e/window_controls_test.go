package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// quit presses ctrl+c in the window and waits until it has ended.
func (s *screen) quit() {
	s.t.Helper()
	if out, err := exec.Command("tmux", "-L", s.socket, "send-keys", "-t", "0", "C-c").CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys C-c: %v %s", err, out)
	}
	s.gone(10 * time.Second)
}

// TestWindowAddsOnlyStateToAProject: the window opened on a person's
// project (a folder holding only a README) asks, and on a yes it and the
// controller it starts add state/ and nothing else.
func TestWindowAddsOnlyStateToAProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "README"), []byte("my project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(20*time.Second, "only a state/ folder")
	win.typeLine("y")
	win.waitFor(30*time.Second, "Connected to the controller")
	win.quit()
	stopRootController(t, root)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"README", "state"}) {
		t.Errorf("the project holds %v after the window and its controller, want only README and state", names)
	}
}

// TestWindowShowsEveryConfigProblem: with a daokit.toml holding four
// problems, the controller the window starts refuses to start and the
// window's banner lists all four and says to run daokit check.
func TestWindowShowsEveryConfigProblem(t *testing.T) {
	t.Parallel()
	root := newRoot(t, `
[heartbeat]
check_interval = "x"
warning_after = "-1s"

[[lanes]]
name = "w"
kind = "nosuch"

[restart]
max_restarts = -3
`)
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "problems found: 4", "daokit check", "heartbeat.check_interval", "heartbeat.warning_after",
		`lanes[0].kind = "nosuch"`, "restart.max_restarts = -3 is too small")
}

// TestWindowCancelsABlockedRun: a run ends BLOCKED and the banner says to
// type /retry or /cancel; /cancel is accepted, and the banner and the
// terminal title stop calling.
func TestWindowCancelsABlockedRun(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(simConfig("1s"), "max_restarts = 20", "max_restarts = 1", 1)
	cfg = strings.Replace(cfg, `"--duration", "1s", "--lines", "6"`, `"--hang-after", "1"`, 1)
	root := newRoot(t, cfg)
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("hang until blocked")
	win.waitFor(60*time.Second, "is blocked", "/cancel")
	// The title follows the banner in the terminal's own time.
	win.until(10*time.Second, "the title calling while blocked", func(string) bool {
		return win.display("#{pane_title}") == "daokit · needs you"
	})
	win.typeLine("/cancel")
	screen := win.until(20*time.Second, "the banner gone after /cancel", func(screen string) bool {
		return !strings.Contains(screen, "is blocked")
	})
	if strings.Contains(screen, "not delivered") {
		t.Errorf("/cancel was refused:\n%s", screen)
	}
	win.until(10*time.Second, "the title back to daokit", func(string) bool { return win.display("#{pane_title}") == "daokit" })
}
