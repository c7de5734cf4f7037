package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestWindowIssuesViewShowsABlockedIssueAndSendsAComment opens the
// window on a team root (it starts the controller, which starts a Lead
// per role): a long backend issue runs and the qa issue filed after it is
// blocked by it. F6 shows the blocked issue and what blocks it, at
// 160×48 and at 80×24; a comment typed in the message box for the issue
// shown reaches the outbox as the person's, written by the controller
// (its ISSUE_CHANGED event), not by the window.
func TestWindowIssuesViewShowsABlockedIssueAndSendsAComment(t *testing.T) {
	root := teamRoot(t)
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "--body", "Sim: sleep 120s", "Login API"); r.code != 0 {
		t.Fatalf("outbox new: %+v", r)
	}
	if r := run(t, "outbox", "new", "--root", root, "--to", "qa", "Test login"); r.code != 0 {
		t.Fatalf("outbox new: %+v", r)
	}
	waitFor(t, 30*time.Second, "#2 blocked by its Lead", func() bool {
		return strings.Contains(run(t, "outbox", "show", "--root", root, "2").stdout, "state:blocked")
	})

	win.keys("F6")
	screen := win.waitFor(20*time.Second, "Issues", "Login API", "running", "Test login", "blocked", "← #1")
	win.fits(160, 48, "issues view", screen)
	win.resize(80, 24)
	win.waitFor(10*time.Second, "Test login", "← #1")
	win.fits(80, 24, "issues view", win.settled(""))

	// backend's #1 is first, qa's #2 second: read #2's thread.
	win.keys("Down", "Enter")
	win.waitFor(10*time.Second, "#2 Test login", "blocked by #1")
	win.typeLine("/comment please wait for the API docs too")
	waitFor(t, 30*time.Second, "the comment in the outbox", func() bool {
		return strings.Contains(run(t, "outbox", "show", "--root", root, "2").stdout, "please wait for the API docs too")
	})
	var show struct {
		Comments []struct{ Author, Body string }
	}
	if err := json.Unmarshal([]byte(run(t, "outbox", "show", "--root", root, "--json", "2").stdout), &show); err != nil {
		t.Fatal(err)
	}
	for _, c := range show.Comments {
		if strings.Contains(c.Body, "API docs") && c.Author != "person" {
			t.Errorf("the comment is written as %q, not as the person", c.Author)
		}
	}
	waitEvent(t, root, "the controller's ISSUE_CHANGED", 10*time.Second, func(e ledger.Event) bool {
		return e.Payload.String("operation") == "ISSUE_CHANGED" && e.Payload.String("kind") == "comment"
	})
	// The thread shows it (the view reads the outbox again on the ack).
	win.waitFor(10*time.Second, "please wait for the API")
}

// TestTeamExampleOpensTheWindow runs examples/team/window.sh, what `make
// team` runs: the window opens on the example team, its controller
// starts the Leads, and F6 shows the three issues, qa's blocked by
// backend's. The thread of backend's #1 shows its Worker's output as the
// Worker prints it, and F5 there opens the Worker's whole log, which
// follows what the Worker goes on printing.
func TestTeamExampleOpensTheWindow(t *testing.T) {
	root := filepath.Join(t.TempDir(), "team-root")
	t.Cleanup(func() { stopRootController(t, root) })
	script := filepath.Join("..", "examples", "team", "window.sh")
	q := quoteAll([]string{daokit, script, root})
	win := openTmux(t, "env DAOKIT="+q[0]+" bash "+q[1]+" "+q[2])
	win.waitFor(30*time.Second, "Connected to the controller")
	win.keys("F6")
	win.waitFor(30*time.Second, "Issues", "Login API", "Login form", "Test login", "← #1")

	// backend's #1 is first in the list; its Worker sleeps 30 s, saying
	// so every 200 ms.
	win.keys("Enter")
	win.waitFor(30*time.Second, "#1 Login API", "Worker · attempt 1", "still working (")
	win.keys("F5")
	screen := win.waitFor(15*time.Second, "Log · backend #1 · attempt 1 · stdout", "working on #1: Login API", "following")
	first := logLines(screen)
	win.until(15*time.Second, "the log view following the Worker's output", func(s string) bool { return logLines(s) > first })
	win.fits(160, 48, "worker log", win.settled(""))
	win.keys("Escape")
	win.waitFor(10*time.Second, "#1 Login API", "Worker · attempt 1")
}

// logLines is the count of lines the log view's title says it holds
// (-1: no log view on screen).
func logLines(screen string) int {
	m := regexp.MustCompile(`(\d+) lines · following`).FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
