package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/live"
)

// bellTerm counts the bells rung on the terminal.
type bellTerm struct {
	mu  sync.Mutex
	out strings.Builder
}

func (b *bellTerm) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.Write(p)
}

func (b *bellTerm) bells() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Titles end with BEL too: count the bells that end none.
	return strings.Count(b.out.String(), "\a") - strings.Count(b.out.String(), "\x1b]2;")
}

// pipelineAt is the fixture's snapshot with the pipeline in status, next
// action next, read at d after fixedNow, with events.
func pipelineAt(status, next string, d time.Duration, events ...ledger.Event) live.LedgerUpdate {
	s := fixtureSnapshot()
	s.Pipeline.Value.Status = status
	s.Pipeline.Value.RoleLifecycle = s.Pipeline.Value.RoleLifecycle.With("route:next_action", next)
	return live.LedgerUpdate{Snapshot: s, Events: events, ReadAt: fixedNow.Add(d)}
}

// runState is the controller's event for a run-state change.
func runState(to, reason string) ledger.Event {
	p := fixturePipeline()
	return ledger.NewEvent(fixedNow, p.TaskID, p.RunID, "S2", ledger.EventSystem, ledger.SeverityWarn,
		ledger.ObjectOf("operation", "RUN_STATE", "from", "generating", "to", to, "reason_code", reason, "lane", "worker"))
}

// titles returns the terminal titles set (OSC 2), in order.
func (b *bellTerm) titles() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, part := range strings.Split(b.out.String(), "\x1b]2;")[1:] {
		if t, _, ok := strings.Cut(part, "\a"); ok {
			out = append(out, t)
		}
	}
	return out
}

// TestBlockedRunCallsThePerson: a run that becomes BLOCKED shows a banner
// saying what to type, rings the bell once, sets the title and runs the
// notify command with the message; opening on a run already blocked
// shows the banner without ringing.
func TestBlockedRunCallsThePerson(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "notified")
	term := &bellTerm{}
	opts := testOptions("en")
	opts.Terminal = term
	cfg := attention.DefaultConfig()
	cfg.Notify = []string{"sh", "-c", `printf '%s|%s' "$1" "$2" > "$3"`, "sh", "{message}", "{need}", out}
	opts.Attention = &cfg
	// The notify command runs under the window's life, which test models
	// have already ended: this one lives, and has no feed to block on.
	opts.Feed = nil
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, opts)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 0))
	_, cmd := m.Update(live.LedgerMsg{Update: pipelineAt(ledger.StatusBlocked, "await_user", time.Minute,
		runState("failed", "RESTART_LIMIT_REACHED"))})
	runQuick(m, cmd)
	if got := term.titles(); len(got) != 1 || got[0] != "daokit · needs you" {
		t.Errorf("titles set %q, want the needs-you title", got)
	}
	if n := term.bells(); n != 1 {
		t.Errorf("%d bells, want 1", n)
	}
	view := m.View()
	for _, s := range []string{"DK-1A2B3C4D is blocked", "/retry", "/cancel"} {
		if !strings.Contains(view, s) {
			t.Errorf("banner lacks %q:\n%s", s, view)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("notify command did not run: %v", err)
	}
	if s := string(data); !strings.Contains(s, "is blocked") || !strings.HasSuffix(s, "|blocked") {
		t.Errorf("notify got %q", s)
	}
	// The same state again does not ring again.
	feed(m, pipelineAt(ledger.StatusBlocked, "await_user", 2*time.Minute))
	if n := term.bells(); n != 1 {
		t.Errorf("%d bells after an unchanged update, want 1", n)
	}

	// A window opened on a blocked run shows it without ringing.
	term2 := &bellTerm{}
	opts.Terminal, opts.Attention, opts.Feed = term2, nil, newFakeFeed()
	m2 := newTestModel(t, opts, 160, 48)
	feed(m2, pipelineAt(ledger.StatusBlocked, "await_user", 0))
	if !strings.Contains(m2.View(), "is blocked") || term2.bells() != 0 {
		t.Errorf("opening on a blocked run: %d bells, banner:\n%s", term2.bells(), m2.View())
	}
}

// TestCancelledRunIsNoCall: a run the person cancelled ends FAILED in
// the pipeline, but nobody needs calling; a long run that finishes DONE
// calls, and sending something clears it.
func TestCancelledRunIsNoCall(t *testing.T) {
	t.Parallel()
	term := &bellTerm{}
	opts := testOptions("en")
	opts.Terminal = term
	m := newTestModel(t, opts, 160, 48)
	feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 0))
	feed(m, pipelineAt(ledger.StatusFailed, "retry_or_cancel", time.Minute, runState("cancelled", "WORKER_CANCELLED")))
	if term.bells() != 0 || strings.Contains(m.View(), "to run it again") {
		t.Fatalf("a cancelled run called: %d bells\n%s", term.bells(), m.View())
	}
	feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 2*time.Minute, runState("generating", "")))
	feed(m, pipelineAt(ledger.StatusDone, "none", 10*time.Minute, runState("completed", "")))
	if term.bells() != 1 || !strings.Contains(m.View(), "is done after") {
		t.Fatalf("a long run's end: %d bells\n%s", term.bells(), m.View())
	}
	typeText(m, "next please")
	press(t, m, "enter")
	if strings.Contains(m.View(), "is done after") {
		t.Error("the done banner stays after the person sent something")
	}
}

// runFinished is the controller's RUN_FINISHED event of the fixture run.
func runFinished(status, reason string, kv ...any) ledger.Event {
	p := fixturePipeline()
	return ledger.NewEvent(fixedNow, p.TaskID, p.RunID, "S2", ledger.EventSystem, ledger.SeverityError,
		ledger.ObjectOf(append([]any{"operation", "RUN_FINISHED", "status", status, "reason_code", reason}, kv...)...))
}

// TestCancelOfABlockedRunClearsTheCall: a BLOCKED run that the person
// cancels (the controller ends it FAILED/WORKER_CANCELLED with a second
// RUN_FINISHED, no cancelled attempt) stops calling: the banner goes and
// the title is set back, without a bell; the same for a change that
// waited for review and for an abandoned run.
func TestCancelOfABlockedRunClearsTheCall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, status, next, reason, called string
	}{
		{"blocked", ledger.StatusBlocked, "await_user", "WORKER_CANCELLED", "is blocked"},
		{"review", ledger.StatusAccept, "review", "WORKER_CANCELLED", "waiting for your review"},
		{"failed, abandoned", ledger.StatusFailed, "retry_or_cancel", "RUN_ABANDONED", "to run it again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			term := &bellTerm{}
			opts := testOptions("en")
			opts.Terminal = term
			m := newTestModel(t, opts, 160, 48)
			feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 0))
			feed(m, pipelineAt(c.status, c.next, time.Minute, runFinished(c.status, "RESTART_LIMIT_REACHED")))
			if !strings.Contains(m.View(), c.called) {
				t.Fatalf("no call before the cancel:\n%s", m.View())
			}
			bells := term.bells()
			feed(m, pipelineAt(ledger.StatusFailed, "retry_or_cancel", 2*time.Minute,
				runFinished(ledger.StatusFailed, c.reason, "ended_from", c.status)))
			v := m.View()
			if strings.Contains(v, c.called) || strings.Contains(v, "/retry") {
				t.Errorf("the banner still calls after the cancel:\n%s", v)
			}
			if got := term.titles(); len(got) < 2 || got[len(got)-1] != "daokit" {
				t.Errorf("titles %q, want the idle title last", got)
			}
			if term.bells() != bells {
				t.Errorf("the cancel rang the bell")
			}
		})
	}
}
