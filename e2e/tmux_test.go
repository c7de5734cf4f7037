package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger/ledgertest"

	"github.com/daokit/daokit/ledger"
)

// screen is a daokit window running in its own tmux server, read back with
// capture-pane as a person would see it.
type screen struct {
	t      *testing.T
	socket string
}

// openWindow starts `daokit args…` in a 160×48 tmux window.
func openWindow(t *testing.T, args ...string) *screen {
	t.Helper()
	return openTmux(t, strings.Join(quoteAll(append([]string{daokit}, args...)), " "))
}

// openTmux runs the shell command line in a 160×48 window of a tmux
// server of its own, which the test's cleanup kills.
func openTmux(t *testing.T, line string) *screen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
	s := &screen{t: t, socket: fmt.Sprintf("daokit-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// A UTF-8 locale, or tmux draws wide and box characters as '_'.
	shell := "env LANG=C.UTF-8 LC_ALL=C.UTF-8 DAOKIT_LANG=en TERM=xterm-256color " + line
	if out, err := exec.Command("tmux", "-L", s.socket, "new-session", "-d", "-x", "160", "-y", "48", shell).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

func (s *screen) capture() string {
	out, err := exec.Command("tmux", "-L", s.socket, "capture-pane", "-p").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// waitFor polls the screen until every text is on it at once.
func (s *screen) waitFor(within time.Duration, texts ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		screen := s.capture()
		all := true
		for _, text := range texts {
			all = all && strings.Contains(screen, text)
		}
		if all {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q within %v; last screen:\n%s", texts, within, screen)
		}
		time.Sleep(50 * time.Millisecond) // polling the terminal; the condition decides
	}
}

// until polls the screen until ok says the screen is what the test
// waits for.
func (s *screen) until(within time.Duration, what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		screen := s.capture()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %s within %v; last screen:\n%s", what, within, screen)
		}
		time.Sleep(50 * time.Millisecond) // polling the terminal; the condition decides
	}
}

// waitAny polls until the screen shows text, remembering it was seen even
// if it goes again (transient states such as STALE).
func (s *screen) sawEver(within time.Duration, text string, seen map[string]bool) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for !seen[text] {
		screen := s.capture()
		for key := range seen {
			if strings.Contains(screen, key) {
				seen[key] = true
			}
		}
		if seen[text] {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q within %v; last screen:\n%s", text, within, screen)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (s *screen) typeLine(text string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", "-L", s.socket, "send-keys", "-t", "0", "-l", text).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys: %v %s", err, out)
	}
	if out, err := exec.Command("tmux", "-L", s.socket, "send-keys", "-t", "0", "Enter").CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys Enter: %v %s", err, out)
	}
}

// TestWindowInTmux: open the window on a fresh root (it starts the
// controller), type an instruction and see the route and DONE; then an
// instruction whose worker hangs once: WARNING, then STALE, the takeover,
// and DONE again.
func TestWindowInTmux(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	once := filepath.Join(root, "hung-once")
	cfg := strings.Replace(simConfig("1s"),
		`command = ["{daokit}", "worker", "sim", "--duration", "1s", "--lines", "6", "--", "{instruction}"]`,
		`command = ["sh", "-c", "case \"$1\" in *hang*) if [ ! -f `+once+` ]; then touch `+once+`; exec {daokit} worker sim --hang-after 2 -- \"$1\"; fi;; esac; exec {daokit} worker sim --duration 1s -- \"$1\"", "sh", "{instruction}"]`, 1)
	run(t, "init", "--root", root)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")

	win.typeLine("add a --json flag to status")
	screen := win.waitFor(30*time.Second, "status done", "next: nothing, the run is finished", "lane: worker", "step: S1")
	if !strings.Contains(screen, "task: DK-") {
		t.Errorf("route bar lacks the task:\n%s", screen)
	}

	// tmux sends the sentence in one write, which Bubble Tea splits at
	// spaces: "ctrl+c" arrives as a word and must stay one.
	win.typeLine("please document ctrl+c handling")
	// Sent, not a quit: it became the goal of the controller's new run.
	win.waitFor(30*time.Second, "goal please document ctrl+c handling")

	win.typeLine("please hang once, then finish")
	seen := map[string]bool{"WARNING": false, "STALE": false, "lease takeover": false}
	win.sawEver(30*time.Second, "WARNING", seen)
	win.sawEver(30*time.Second, "STALE", seen)
	win.sawEver(30*time.Second, "lease takeover", seen)
	win.waitFor(30*time.Second, "status done", "heartbeat stale")
}

// display asks tmux for a format of the window (e.g. its bell flag).
func (s *screen) display(format string) string {
	out, err := exec.Command("tmux", "-L", s.socket, "display", "-p", "-t", "0", format).Output()
	if err != nil {
		s.t.Fatalf("tmux display %s: %v", format, err)
	}
	return strings.TrimSpace(string(out))
}

// TestWindowCallsWhenBlocked: a worker that always hangs uses up its
// restarts and the run ends BLOCKED: the window's banner says what to type
// and it rings the bell (tmux flags the window).
func TestWindowCallsWhenBlocked(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(simConfig("1s"), "max_restarts = 20", "max_restarts = 1", 1)
	cfg = strings.Replace(cfg, `"--duration", "1s", "--lines", "6"`, `"--hang-after", "1"`, 1)
	root := newRoot(t, cfg)
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	if flag := win.display("#{window_bell_flag}"); flag != "0" {
		t.Fatalf("bell flag %q before anything happened", flag)
	}
	win.typeLine("hang until blocked")
	win.waitFor(60*time.Second, "is blocked", "/retry", "/cancel")
	if flag := win.display("#{window_bell_flag}"); flag != "1" {
		t.Errorf("bell flag %q after the run was blocked, want 1", flag)
	}
}

// TestWindowStartsASuccessor: kill -9 the controller the window started;
// without a key press the window says how it ended and starts a
// successor, which takes the root.
func TestWindowStartsASuccessor(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	first, err := ledger.LockHolder(root)
	if err != nil || first == 0 {
		t.Fatalf("no controller holds the root: %d %v", first, err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	win.waitFor(20*time.Second, "killed by SIGKILL")
	var next int
	win.until(30*time.Second, "a successor's pid in the status bar", func(screen string) bool {
		next, _ = ledger.LockHolder(root)
		return next != 0 && next != first && strings.Contains(screen, fmt.Sprintf("ready pid %d", next))
	})
}

// gone waits until the window's program has ended (tmux closes the
// session with it).
func (s *screen) gone(within time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for exec.Command("tmux", "-L", s.socket, "has-session").Run() == nil {
		if time.Now().After(deadline) {
			s.t.Fatalf("the window did not end within %v:\n%s", within, s.capture())
		}
		time.Sleep(50 * time.Millisecond) // polling tmux; the condition decides
	}
}

// TestWindowRemembers: quit the window and open it again on the same
// root: the conversation and the input history are back.
func TestWindowRemembers(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("remember this sentence")
	win.waitFor(30*time.Second, "remember this sentence", "delivered")
	if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "C-c").CombinedOutput(); err != nil {
		t.Fatalf("send-keys C-c: %v %s", err, out)
	}
	win.gone(10 * time.Second)

	again := openWindow(t, "--root", root)
	again.waitFor(30*time.Second, "remember this sentence", "delivered", "Connected to the controller")
	if out, err := exec.Command("tmux", "-L", again.socket, "send-keys", "-t", "0", "Up").CombinedOutput(); err != nil {
		t.Fatalf("send-keys Up: %v %s", err, out)
	}
	again.until(10*time.Second, "the sentence back in the input", func(screen string) bool {
		return strings.Contains(screen, "› remember this sentence")
	})
}

// TestWatchFollowsALedger: `daokit watch` on a ledger written by someone
// else (here, plain file writes as the Python tool makes them) shows it and
// follows new events.
func TestWatchFollowsALedger(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run(t, "init", "--root", root)
	pipeline := `{"schema_version":"1.0.0","task_id":"DKT-900","run_id":"RUN-900","goal":"python wrote this goal","status":"EXECUTE","current_step":"S1","steps":[{"id":"S1","title":"Implement","category":"implementation","goal":"g","actions":[],"acceptance_criteria":[],"expected_outputs":[],"dependencies":[],"planner_source":"bootstrap_default"}],"role_lifecycle":{"orchestrator":"running"},"succession":{"enabled":true,"last_takeover_at":null},"updated_at":"2026-11-22T01:45:05.330468+00:00"}`
	if err := os.WriteFile(filepath.Join(root, "state", "pipeline_state.json"), []byte(pipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	win := openWindow(t, "watch", "--root", root)
	win.waitFor(20*time.Second, "python wrote this goal", "DKT-900")

	e := ledger.NewEvent(time.Now(), "DKT-900", "RUN-900", "S1", ledger.EventStepFailed, ledger.SeverityError,
		ledger.ObjectOf("reason_code", "WATCHED_FROM_OUTSIDE"))
	line, _ := ledger.MarshalLine(e)
	ledgertest.AppendEvents(t, root, line)
	win.waitFor(20*time.Second, "WATCHED_FROM_OUTSIDE")
}

// TestWindowAcceptsASimChange: the simulated agent edits a real project
// in its step worktree; the window shows the step waiting for review, the
// changes view (F3) shows the diff and takes its own keys, and /accept,
// typed while it is open, brings the change into the project's main
// branch.
func TestWindowAcceptsASimChange(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root := newRoot(t, worktreeConfig(project, "1s"))
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("add a cache")
	win.waitFor(60*time.Second, "review the change", "has a change waiting for your review")
	if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "F3").CombinedOutput(); err != nil {
		t.Fatalf("send-keys F3: %v %s", err, out)
	}
	win.waitFor(30*time.Second, "Changes", "+// add a cache (simulated edit, round 1)")
	// The keys the view's help lists act on it and none reaches the
	// message box; "/", which the view does not use, starts a message
	// there (issue 27: j and ] were typed into the message box, and
	// "]/accept" became a new task).
	if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "-l", "j]k").CombinedOutput(); err != nil {
		t.Fatalf("send-keys j]k: %v %s", err, out)
	}
	win.typeLine("/accept")
	deadline := time.Now().Add(30 * time.Second)
	for gittest.Git(t, project, "log", "-1", "--format=%s", "main") != "daokit: add a cache" {
		if time.Now().After(deadline) {
			t.Fatalf("main never got the sim's commit:\n%s", win.capture())
		}
		time.Sleep(100 * time.Millisecond) // polling git; the condition decides
	}
	if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "Escape").CombinedOutput(); err != nil {
		t.Fatalf("send-keys Escape: %v %s", err, out)
	}
	win.until(30*time.Second, "the changes view closed", func(screen string) bool {
		return !strings.Contains(screen, "(simulated edit, round 1)")
	})
	win.waitFor(30*time.Second, "status done")
}
