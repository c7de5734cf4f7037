package controller

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/componenttest"
	"github.com/daokit/daokit/tui/live"
)

// runFixture brings a fresh controller's newest run into one state and
// returns its task id.
type runFixture struct {
	name string
	// ran: a worker was started for the run (it cannot be abandoned).
	ran   bool
	start func(t *testing.T) (*harness, string)
}

// tickScript prints a line every 0.2 s until stopped, so that the
// liveness loop never takes it for hung.
const tickScript = `echo started; while :; do echo tick; sleep 0.2; done`

func controlFixtures() []runFixture {
	return []runFixture{
		{name: "running", ran: true, start: func(t *testing.T) (*harness, string) {
			h := startHarness(t, t.TempDir(), shellConfig(tickScript))
			ack := h.forward("run on")
			h.typedFor(ack.TaskID, ledger.EventStepStarted)
			return h, ack.TaskID
		}},
		{name: "waiting for its lane", start: func(t *testing.T) (*harness, string) {
			h := startHarness(t, t.TempDir(), shellConfig(tickScript))
			first := h.forward("first")
			h.typedFor(first.TaskID, ledger.EventStepStarted)
			second := h.forward("second")
			h.waitFor("a wait for the lane", func(e ledger.Event) bool {
				return e.TaskID == second.TaskID && op(e) == opRunState && e.Payload.String("to") == stateWaiting
			})
			return h, second.TaskID
		}},
		{name: "waiting for review", ran: true, start: func(t *testing.T) (*harness, string) {
			repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
			h := startHarness(t, t.TempDir(), worktreeConfig(repo, editScript))
			ack := h.forward("review me")
			h.opFor(ack.TaskID, OpReviewPending)
			return h, ack.TaskID
		}},
		{name: "blocked", ran: true, start: func(t *testing.T) (*harness, string) {
			cfg := shellConfig(`echo trying; exit 3`)
			cfg.Restart.MaxRestarts = 1
			h := startHarness(t, t.TempDir(), cfg)
			ack := h.forward("block")
			endsWith(t, h, ack.TaskID, ledger.StatusBlocked)
			return h, ack.TaskID
		}},
		{name: "failed", ran: true, start: func(t *testing.T) (*harness, string) {
			cfg := shellConfig(`echo started; exec sleep 30`)
			cfg.Lanes[0].Timeout = config.Duration(300 * time.Millisecond)
			h := startHarness(t, t.TempDir(), cfg)
			ack := h.forward("time out")
			endsWith(t, h, ack.TaskID, ledger.StatusFailed)
			return h, ack.TaskID
		}},
		{name: "failed before its worker started", start: func(t *testing.T) (*harness, string) {
			cfg := shellConfig("")
			cfg.Lanes[0].Command = []string{filepath.Join(t.TempDir(), "no-such-worker")}
			h := startHarness(t, t.TempDir(), cfg)
			ack := h.forward("never runs")
			endsWith(t, h, ack.TaskID, ledger.StatusFailed)
			return h, ack.TaskID
		}},
	}
}

// endsWith waits for the run's RUN_FINISHED and fails unless it ended
// with status.
func endsWith(t *testing.T, h *harness, taskID, status string) ledger.Event {
	t.Helper()
	end := h.finished(taskID)
	if got := end.Payload.String("status"); got != status {
		t.Fatalf("run ended %s/%s, want %s", got, end.Payload.String("reason_code"), status)
	}
	return end
}

// window reads the ledger as the window does and returns what its
// attention decides and the banner's line in each language (empty when
// the banner shows none).
func window(t *testing.T, root string, events []ledger.Event) (attention.State, map[string]string) {
	t.Helper()
	m := attention.New(attention.DefaultConfig())
	snap := ledger.LoadSnapshot(root)
	if !snap.Pipeline.OK() {
		t.Fatalf("pipeline: %v", snap.Pipeline.Err)
	}
	m.Ledger(live.LedgerUpdate{Initial: true, Snapshot: &snap, Events: events, ReadAt: time.Now()})
	st := m.State()
	lines := map[string]string{}
	for _, lang := range []string{i18n.English, i18n.Chinese} {
		if it, ok := banner.AttentionItem(componenttest.Env(lang, time.Now()), st); ok {
			lines[lang] = it.Text
		}
	}
	return st, lines
}

var slashCommand = regexp.MustCompile(`/([a-z]+)`)

// suggested returns the commands a banner line tells the person to type.
func suggested(line string) []string {
	var out []string
	for _, m := range slashCommand.FindAllStringSubmatch(line, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestEveryCommandTheBannerSuggestsIsAccepted walks every state a run
// can wait in × every command the window's banner suggests there (in
// both languages), plus /cancel everywhere and /abandon where no worker
// ran: each is sent to a real controller as the window sends it (no
// ids: the current run) and must be accepted and do what it says. A
// cancel or abandon ends the run FAILED with its reason, after which the
// window's banner (and so its title) has nothing left to call for.
func TestEveryCommandTheBannerSuggestsIsAccepted(t *testing.T) {
	t.Parallel()
	for _, fx := range controlFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			// What the banner suggests in this state.
			h, _ := fx.start(t)
			_, lines := window(t, h.root, h.events())
			h.stop()
			cmds := []string{string(relay.ControlCancel)}
			for lang, line := range lines {
				if len(suggested(line)) == 0 {
					t.Errorf("%s banner %q suggests no command", lang, line)
				}
				for _, c := range suggested(line) {
					if !slices.Contains(cmds, c) {
						cmds = append(cmds, c)
					}
				}
			}
			if !fx.ran {
				cmds = append(cmds, string(relay.ControlAbandon))
			}
			for _, cmd := range cmds {
				t.Run(cmd, func(t *testing.T) {
					t.Parallel()
					h, taskID := fx.start(t)
					before := len(h.events())
					ack, err := h.control(relay.Control{Kind: relay.ControlKind(cmd)})
					if err != nil {
						t.Fatalf("/%s refused: %v", cmd, err)
					}
					if ack.TaskID != taskID {
						t.Fatalf("/%s went to task %s, want %s", cmd, ack.TaskID, taskID)
					}
					checkEffect(t, h, taskID, cmd, before)
				})
			}
		})
	}
}

// checkEffect waits for what an accepted command does to the run.
func checkEffect(t *testing.T, h *harness, taskID, cmd string, before int) {
	t.Helper()
	after := func(what string, match func(ledger.Event) bool) ledger.Event {
		return h.waitFor(what, func(e ledger.Event) bool {
			return e.TaskID == taskID && match(e) && slices.IndexFunc(h.events(), func(x ledger.Event) bool { return x.EventID == e.EventID }) >= before
		})
	}
	switch relay.ControlKind(cmd) {
	case relay.ControlCancel, relay.ControlAbandon:
		want := ReasonCancelled
		if cmd == string(relay.ControlAbandon) {
			want = ReasonAbandoned
		}
		end := after("RUN_FINISHED "+want, func(e ledger.Event) bool {
			return op(e) == opRunFinished && e.Payload.String("reason_code") == want
		})
		if got := end.Payload.String("status"); got != ledger.StatusFailed {
			t.Errorf("/%s ended the run %s, want FAILED", cmd, got)
		}
		waitPipeline(t, h.root, func(p ledger.PipelineState) bool { return p.Status == ledger.StatusFailed })
		st, lines := window(t, h.root, h.events())
		if st.Need != attention.None || len(lines) > 0 {
			t.Errorf("after /%s the window still calls: %+v %q", cmd, st, lines)
		}
		if !st.Run.EndedByPerson() {
			t.Errorf("after /%s the window does not know the run was stopped on purpose: %+v", cmd, st)
		}
		if _, err := h.control(relay.Control{Kind: relay.ControlCancel}); relay.CodeOf(err) != codeNotRunning {
			t.Errorf("a second /cancel: %v, want %s", err, codeNotRunning)
		}
	case relay.ControlRetry:
		after("the retried step's wait for its lane", func(e ledger.Event) bool {
			return op(e) == opRunState && e.Payload.String("to") == stateWaiting
		})
	case relay.ControlAccept:
		after("ACCEPTANCE_PASSED", func(e ledger.Event) bool { return e.EventType == ledger.EventAcceptancePassed })
	case relay.ControlReject:
		after("ACCEPTANCE_FAILED", func(e ledger.Event) bool { return e.EventType == ledger.EventAcceptanceFailed })
	default:
		t.Fatalf("the banner suggests /%s, which this test does not know", cmd)
	}
}

// TestACancelledBlockedRunStaysClosedForASuccessor: the index records
// the cancel of an ended run, so that the next controller rebuilds it
// FAILED/cancelled rather than BLOCKED, and a second cancel is refused.
func TestACancelledBlockedRunStaysClosedForASuccessor(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig(`echo trying; exit 3`)
	cfg.Restart.MaxRestarts = 1
	h := startHarness(t, root, cfg)
	ack := h.forward("block")
	endsWith(t, h, ack.TaskID, ledger.StatusBlocked)
	if _, err := h.control(relay.Control{Kind: relay.ControlCancel, Reason: "not needed"}); err != nil {
		t.Fatalf("cancel of a blocked run: %v", err)
	}
	end := h.waitFor("the cancel's RUN_FINISHED", func(e ledger.Event) bool {
		return op(e) == opRunFinished && e.Payload.String("reason_code") == ReasonCancelled
	})
	if end.Payload.String("ended_from") != ledger.StatusBlocked || end.Payload.String("reason") != "not needed" {
		t.Errorf("RUN_FINISHED payload %v, want ended_from BLOCKED and the person's reason", end.Payload)
	}
	h.stop()
	h2 := startHarness(t, root, cfg)
	if _, err := h2.control(relay.Control{Kind: relay.ControlCancel}); relay.CodeOf(err) != codeNotRunning {
		t.Errorf("cancel after a restart: %v, want %s", err, codeNotRunning)
	}
	if _, err := h2.control(relay.Control{Kind: relay.ControlRetry}); err != nil {
		t.Errorf("a cancelled run can still be retried: %v", err)
	}
}

// TestASuccessorCancelsARunThatBlockedBeforeIt: a run that ended BLOCKED
// under a previous controller is rebuilt by the next one, which accepts
// its /cancel and ends it FAILED.
func TestASuccessorCancelsARunThatBlockedBeforeIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig(`echo trying; exit 3`)
	cfg.Restart.MaxRestarts = 1
	h := startHarness(t, root, cfg)
	ack := h.forward("block")
	endsWith(t, h, ack.TaskID, ledger.StatusBlocked)
	h.stop()
	h2 := startHarness(t, root, cfg)
	if _, err := h2.control(relay.Control{Kind: relay.ControlCancel}); err != nil {
		t.Fatalf("cancel of a run that blocked under the previous controller: %v", err)
	}
	end := h2.waitFor("the cancel's RUN_FINISHED", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == opRunFinished && e.Payload.String("reason_code") == ReasonCancelled
	})
	if end.Payload.String("status") != ledger.StatusFailed || end.Payload.String("ended_from") != ledger.StatusBlocked {
		t.Errorf("RUN_FINISHED payload %v", end.Payload)
	}
	waitPipeline(t, root, func(p ledger.PipelineState) bool { return p.Status == ledger.StatusFailed })
}

// TestAControllerAddsOnlyStateToAProject: a controller started on a
// person's project folder adds state/ and nothing else (no src, docs,
// tests, … as `daokit init` makes), even once a run has gone through.
func TestAControllerAddsOnlyStateToAProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "README"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, root, shellConfig(`echo hello`))
	h.stop()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"README", ledger.StateDir}) {
		t.Errorf("the project holds %v, want only README and %s", names, ledger.StateDir)
	}
}
