package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

const teamWorkflow = `
[roles.backend]
role_repo = "repos/backend"
[roles.qa]
role_repo = "repos/qa"
depends_on = ["backend"]
`

// teamRoot is an initialised root whose daokit.toml has fast liveness
// settings and whose workflow.toml has two roles.
func teamRoot(t *testing.T) string {
	root := newRoot(t, simConfig("1s")+"\n[team]\noutbox_root = \"team\"\n[team.role_max_concurrent]\nbackend = 2\n")
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(teamWorkflow), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %+v", r)
	}
	return root
}

func leadEvent(op, role string) func(ledger.Event) bool {
	return func(e ledger.Event) bool {
		return e.Payload.String("operation") == op && e.Payload.String("role") == role
	}
}

// The controller starts a Lead per role, each its own process holding a
// lease; a Lead killed with SIGKILL is seen exiting and is restarted; the
// outbox's events reach the ledger's event log; work filed from the shell
// is done and closed with evidence.
func TestControllerSupervisesLeads(t *testing.T) {
	root := teamRoot(t)
	c := startController(t, root)
	defer c.stop()
	waitEvent(t, root, "backend Lead started", 20*time.Second, leadEvent("LEAD_STARTED", "backend"))
	waitEvent(t, root, "qa Lead started", 20*time.Second, leadEvent("LEAD_STARTED", "qa"))

	waitFor(t, 10*time.Second, "two Lead leases", func() bool {
		n := 0
		for _, l := range ledger.LoadSnapshot(root).Leases.Value.Leases {
			if strings.HasPrefix(l.Lane, "lead-") && l.Status == ledger.LeaseActive {
				n++
			}
		}
		return n == 2
	})

	// The backend Worker takes a while, so that the qa Lead reads #2 while
	// #1 is still open even on a loaded machine, and must block on it.
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "--body", "Sim: sleep 5s", "Login", "API"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := run(t, "outbox", "new", "--root", root, "--to", "qa", "Test", "login"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, id := range []string{"1", "2"} {
				t.Logf("issue %s:\n%s", id, run(t, "outbox", "show", "--root", root, id).stdout)
			}
			for _, f := range []string{"backend.stderr", "qa.stderr", "backend.json"} {
				data, _ := os.ReadFile(filepath.Join(root, "team", ".daokit", "leads", f))
				t.Logf("%s:\n%s", f, data)
			}
		}
	})
	waitFor(t, 30*time.Second, "both issues closed", func() bool {
		r := run(t, "outbox", "list", "--root", root, "--state", "closed")
		return strings.Contains(r.stdout, "Login API") && strings.Contains(r.stdout, "Test login")
	})
	show := run(t, "outbox", "show", "--root", root, "2")
	for _, want := range []string{"BlockedBy: #1", "Unblocked", "IssueRef: #2", "Changes: commit sim-", "Tests: "} {
		if !strings.Contains(show.stdout, want) {
			t.Fatalf("issue 2 lacks %q:\n%s", want, show.stdout)
		}
	}
	// The Worker's output is its attempt's log, which daokit logs reads.
	if r := run(t, "logs", "--root", root, "--role", "backend", "--issue", "1"); r.code != 0 || !strings.Contains(r.stdout, "working on #1: Login API") ||
		!strings.Contains(r.stdout, "Tests: ") {
		t.Fatalf("daokit logs --role backend --issue 1: %+v", r)
	}
	if r := run(t, "logs", "--root", root, "--role", "backend", "--issue", "1", "--attempt", "9"); r.code == 0 || !strings.Contains(r.stderr, "no log is kept for backend #1 attempt 9") {
		t.Fatalf("daokit logs of an attempt that never was: %+v", r)
	}
	waitEvent(t, root, "outbox events in the ledger", 10*time.Second, func(e ledger.Event) bool {
		return e.Payload.String("operation") == "OUTBOX_EVENT" && e.Payload.String("kind") == "closed"
	})

	// The backend Lead to kill is the newest one: on a loaded machine the
	// supervisor may already have judged the first one stale and
	// replaced it, and a Lead gone before the kill lands is looked up
	// again.
	var pid int
	waitFor(t, 20*time.Second, "a backend Lead killed with SIGKILL", func() bool {
		for _, e := range events(t, root) {
			if leadEvent("LEAD_STARTED", "backend")(e) {
				pid = payloadInt(e, "pid")
			}
		}
		err := syscall.Kill(pid, syscall.SIGKILL)
		if err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Fatal(err)
		}
		return err == nil
	})
	exit := waitEvent(t, root, "the killed Lead's exit", 20*time.Second, func(e ledger.Event) bool {
		return leadEvent("LEAD_EXITED", "backend")(e) && payloadInt(e, "pid") == pid
	})
	if reason := exit.Payload.String("reason_code"); reason != "LEAD_KILLED_SIGNAL" {
		t.Fatalf("a Lead killed with SIGKILL exited for %q", reason)
	}
	waitFor(t, 20*time.Second, "a new backend Lead", func() bool {
		for _, e := range events(t, root) {
			if leadEvent("LEAD_STARTED", "backend")(e) && payloadInt(e, "pid") != pid {
				return true
			}
		}
		return false
	})

	// A Lead that stops beating (SIGSTOP: alive but silent) is judged
	// STALE, killed and restarted.
	var second int
	for _, e := range events(t, root) {
		if leadEvent("LEAD_STARTED", "qa")(e) {
			second = payloadInt(e, "pid")
		}
	}
	if err := syscall.Kill(second, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, root, "the stopped Lead judged STALE", 20*time.Second, func(e ledger.Event) bool {
		return e.EventType == ledger.EventHeartbeatStale && e.Payload.String("role") == "qa"
	})
	exit = waitEvent(t, root, "the hung Lead's exit", 20*time.Second, func(e ledger.Event) bool {
		return leadEvent("LEAD_EXITED", "qa")(e) && payloadInt(e, "pid") == second
	})
	if reason := exit.Payload.String("reason_code"); reason != "LEAD_HUNG" {
		t.Fatalf("a Lead killed as STALE exited for %q", reason)
	}
	waitFor(t, 20*time.Second, "a new qa Lead", func() bool {
		for _, e := range events(t, root) {
			if leadEvent("LEAD_STARTED", "qa")(e) && payloadInt(e, "pid") != second {
				return true
			}
		}
		return false
	})

	// The window files an issue through the controller (/issue ROLE TITLE):
	// the relay request's id makes a resend a no-op.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Control(ctx, relay.Control{Kind: relay.ControlIssue, Reason: "backend Rate limits from the window"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Control(ctx, relay.Control{Kind: relay.ControlIssue, Reason: "nobody Anything"}); err == nil {
		t.Fatal("an issue for an unknown role was filed")
	}
	waitFor(t, 30*time.Second, "the window's issue done", func() bool {
		r := run(t, "outbox", "list", "--root", root, "--state", "closed")
		return strings.Contains(r.stdout, "Rate limits from the window")
	})

	st := run(t, "status", "--root", root)
	if !strings.Contains(st.stdout, "backend") || !strings.Contains(st.stdout, "qa") {
		t.Fatalf("status does not list the roles:\n%s", st.stdout)
	}
}
