package tui

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/lead/roster"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/events"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/component/issues"
	"github.com/daokit/daokit/tui/component/logview"
	"github.com/daokit/daokit/tui/component/pipeline"
	"github.com/daokit/daokit/tui/component/roles"
	"github.com/daokit/daokit/tui/component/statusbar"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/memory"
	"github.com/daokit/daokit/tui/relayctx"
)

// routeCase sends one message type through the root's real Update and
// checks that it reached the child that owns it.
type routeCase struct {
	// setup prepares the window (e.g. a link phase the message follows).
	setup func(t *testing.T, m *Model)
	msg   tea.Msg
	check func(t *testing.T, m *Model, log string)
}

// syncLog is a log buffer for the window's debug logger.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// viewHas fails unless the frame shows s.
func viewHas(s string) func(t *testing.T, m *Model, _ string) {
	return func(t *testing.T, m *Model, _ string) {
		t.Helper()
		if v := m.View(); !strings.Contains(v, s) {
			t.Errorf("frame lacks %q:\n%s", s, v)
		}
	}
}

// handoffPackage is a valid handoff package for a takeover of DK-1.
func handoffPackage(t *testing.T) ledger.HandoffPackage {
	t.Helper()
	pkg := ledger.HandoffPackage{
		SchemaVersion: ledger.SchemaVersion, TaskID: "DK-1", RunID: "R-1", CurrentStep: "S1",
		NextAction: ledger.NextActionResume, ResumableStepIDs: []string{"S1"},
		StepStatus: ledger.StepStatus{Pending: []string{"S1"}}, CreatedAt: ledger.FormatTime(fixedNow),
		EvidencePaths: []string{"report.md"}, Goal: "修复登录", Constraints: []string{},
		LatestInstruction: "fix the login", CurrentBlockers: []string{},
	}
	var err error
	if pkg.PackageHash, err = pkg.ComputeHash(); err != nil {
		t.Fatal(err)
	}
	return pkg
}

// routeCases has one case per message type declared in the window's
// packages (TestEveryMessageTypeIsRouted checks that none is missing).
func routeCases(t *testing.T) map[string]routeCase {
	saved := &compact.Context{}
	saved.SetFacts(compact.Facts{LatestInstruction: "from the saved file"})
	toStarting := func(t *testing.T, m *Model) {
		m.Update(live.ProbedMsg{})
		if p := m.LinkState().Phase; p != link.Starting {
			t.Fatalf("setup: link %v, want starting", p)
		}
	}
	phase := func(want link.Phase) func(t *testing.T, m *Model, _ string) {
		return func(t *testing.T, m *Model, _ string) {
			if got := m.LinkState().Phase; got != want {
				t.Errorf("link %v, want %v", got, want)
			}
		}
	}
	sent := func(t *testing.T, m *Model) {
		m.Update(conversation.SentMsg{Seq: 1, At: fixedNow, Text: "fix the login"})
	}
	return map[string]routeCase{
		"relayctx.HandoffMsg": {msg: relayctx.HandoffMsg{Package: handoffPackage(t)},
			check: func(t *testing.T, m *Model, _ string) {
				if n := m.RelayContext().Restores(); n != 1 {
					t.Errorf("relay context restored %d times from the handoff package, want 1", n)
				}
				if f := m.RelayContext().Context().Facts(); f.Goal != "修复登录" {
					t.Errorf("goal after the handoff %q", f.Goal)
				}
			}},
		"relayctx.LoadedMsg": {msg: relayctx.LoadedMsg{Data: saved.Encode()},
			check: func(t *testing.T, m *Model, _ string) {
				if got := m.RelayContext().Context().Facts().LatestInstruction; got != "from the saved file" {
					t.Errorf("latest instruction %q after loading", got)
				}
			}},
		"relayctx.CompactedMsg": {msg: relayctx.CompactedMsg{Context: &compact.Context{}, Report: compact.Report{BytesBefore: 4096, BytesAfter: 1024}},
			check: func(t *testing.T, m *Model, _ string) {
				if f := m.RelayContext().Figures(); f.Runs != 1 || f.Before != 4096 {
					t.Errorf("figures after a compaction %+v", f)
				}
			}},
		"relayctx.SavedMsg": {msg: relayctx.SavedMsg{Err: errors.New("no space left on device")},
			check: viewHas("no space left on device")},
		"relayctx.EditedMsg": {msg: relayctx.EditedMsg{Data: []byte(`{"relay_context": {"goal": "g", "constraints": [], "latest_instruction": "edited by hand", "controller_route_summary": {"task_id": "DK-1"}}}`)},
			check: func(t *testing.T, m *Model, _ string) {
				if got := m.RelayContext().Context().Facts().LatestInstruction; got != "edited by hand" {
					t.Errorf("latest instruction %q after a hand edit", got)
				}
				viewHas("context lacks blockers")(t, m, "")
			}},
		"live.ChangesMsg": {msg: live.ChangesMsg{Source: changesSource, Files: gitwork.Parse([]byte(changesDiff))},
			setup: func(t *testing.T, m *Model) { m.Update(tea.KeyMsg{Type: tea.KeyF3}) },
			check: viewHas("internal/cache/lru.go")},
		"live.LedgerMsg": {msg: live.LedgerMsg{Update: fixtureUpdate(3)},
			check: func(t *testing.T, m *Model, _ string) {
				if n := m.Events().Len(); n != 3 {
					t.Errorf("event pane holds %d events, want 3", n)
				}
			}},
		"live.RelayMsg": {msg: live.RelayMsg{Update: live.RelayUpdate{Controller: &live.ControllerState{State: "ready", PID: 31337}}},
			check: viewHas("31337")},
		"live.TickMsg": {msg: live.TickMsg{Now: fixedNow.Add(time.Hour)},
			check: func(t *testing.T, m *Model, _ string) {
				if got := m.LinkState().Now; !got.Equal(fixedNow.Add(time.Hour)) {
					t.Errorf("link clock %v after a tick", got)
				}
			}},
		"live.ForwardedMsg": {setup: sent, msg: live.ForwardedMsg{Seq: 1, Ack: live.Ack{Route: live.Route{TaskID: "DK-7"}}},
			check: func(t *testing.T, m *Model, _ string) {
				viewHas("DK-7")(t, m, "")
				if n := len(m.RelayContext().Context().Entries(compact.StatusReports)); n != 1 {
					t.Errorf("%d status reports recorded, want the ack", n)
				}
			}},
		"live.ControlledMsg": {setup: sent, msg: live.ControlledMsg{Seq: 1, Kind: "retry", Err: &live.Error{Code: "unavailable"}},
			check: func(t *testing.T, m *Model, _ string) {
				viewHas("not delivered")(t, m, "")
				if n := len(m.RelayContext().Context().Entries(compact.APIErrorDumps)); n != 1 {
					t.Errorf("%d errors recorded, want the failed request", n)
				}
			}},
		"live.ObservedMsg": {msg: live.ObservedMsg{Err: errors.New("observe refused")},
			check: func(t *testing.T, _ *Model, log string) {
				if !strings.Contains(log, "observe refused") {
					t.Errorf("log lacks the failed observe:\n%s", log)
				}
			}},
		"live.ProbedMsg":  {msg: live.ProbedMsg{Probe: live.Probe{Live: true, PID: 77}}, check: phase(link.Connecting)},
		"live.StartedMsg": {setup: toStarting, msg: live.StartedMsg{Proc: fakeProc{pid: 4001}}, check: phase(link.Waiting)},
		"live.ExitedMsg": {setup: func(t *testing.T, m *Model) {
			toStarting(t, m)
			m.Update(live.StartedMsg{Proc: fakeProc{pid: 4001}})
		}, msg: live.ExitedMsg{PID: 4001, Exit: live.Exit{Code: 2}}, check: phase(link.Exited)},
		"link.StateMsg":    {msg: link.StateMsg{State: link.State{Phase: link.Connected, PID: 4242}}, check: viewHas("4242")},
		"component.EnvMsg": {msg: component.EnvMsg{Env: zhEnv()}, check: viewHas("对话")},
		"statusbar.FactsMsg": {msg: statusbar.FactsMsg{Missing: []compact.Fact{compact.FactBlockers}},
			check: viewHas("context lacks blockers")},
		"banner.SetMsg": {msg: banner.SetMsg{Key: "test", Item: banner.Item{Level: banner.Warn, Text: "something to say"}},
			check: viewHas("something to say")},
		"conversation.NoteMsg": {msg: conversation.NoteMsg{Kind: conversation.KindSystem, ID: "tui.conversation.started", Args: []string{"PID", "5150"}},
			check: viewHas("5150")},
		"conversation.SentMsg": {msg: conversation.SentMsg{Seq: 9, Text: "a sentence of mine"}, check: viewHas("a sentence of mine")},
		"input.SubmittedMsg": {msg: input.SubmittedMsg{Text: "please document ctrl+c handling"},
			check: func(t *testing.T, m *Model, _ string) {
				r := m.opts.Relay.(*fakeRelay)
				if !slices.Contains(r.Calls(), "forward:please document ctrl+c handling") {
					t.Errorf("relay calls %q", r.Calls())
				}
			}},
		"input.FlushMsg": {setup: func(t *testing.T, m *Model) { typeText(m, "gathered") },
			msg: input.FlushMsg{}, check: func(t *testing.T, m *Model, _ string) {
				if m.input.Value() != "gathered" {
					t.Errorf("input %q", m.input.Value())
				}
			}},
		// The first burst of a new window is gen 1: its end acts on the
		// Enter it held.
		"tui.BurstTickMsg": {setup: func(t *testing.T, m *Model) { sendBurst(m, pasteKeys("sent at the end\n")) },
			msg: BurstTickMsg{gen: 1}, check: func(t *testing.T, m *Model, _ string) {
				if r := m.opts.Relay.(*fakeRelay); !slices.Contains(r.Calls(), "forward:sent at the end") {
					t.Errorf("the held enter was not acted on at the burst's end: relay calls %q", r.Calls())
				}
			}},
		"input.RefusedMsg": {msg: input.RefusedMsg{Size: 1 << 20, Max: input.MaxMessage},
			check: viewHas("larger than a message may be")},
		"memory.LoadedMsg": {msg: memory.LoadedMsg{Snapshot: memory.Snapshot{Version: 1,
			Conversation: []conversation.Saved{{Kind: conversation.KindUser, Text: "remembered words", Delivery: conversation.Delivered}},
			History:      []string{"remembered words"}}},
			check: func(t *testing.T, m *Model, _ string) {
				viewHas("remembered words")(t, m, "")
				if h := m.input.History(); len(h) != 1 {
					t.Errorf("history %q after loading", h)
				}
			}},
		"memory.SavedMsg":         {msg: memory.SavedMsg{Err: errors.New("read-only file system")}, check: viewHas("read-only file system")},
		"conversation.RestoreMsg": {msg: conversation.RestoreMsg{Entries: []conversation.Saved{{Kind: conversation.KindSystem, Text: "from before"}}}, check: viewHas("from before")},
		"input.RestoreMsg": {msg: input.RestoreMsg{History: []string{"older"}},
			check: func(t *testing.T, m *Model, _ string) {
				if h := m.input.History(); len(h) != 1 || h[0] != "older" {
					t.Errorf("history %q", h)
				}
			}},
		"conversation.FocusMsg": {setup: func(t *testing.T, m *Model) {
			m.Update(conversation.RestoreMsg{Entries: []conversation.Saved{{Kind: conversation.KindUser, Text: "about DK-1", Task: "DK-1"},
				{Kind: conversation.KindUser, Text: "about DK-2", Task: "DK-2"}}})
		}, msg: conversation.FocusMsg{TaskID: "DK-2"}, check: func(t *testing.T, m *Model, _ string) {
			viewHas("about DK-2")(t, m, "")
			if strings.Contains(m.View(), "about DK-1") {
				t.Errorf("a window focused on DK-2 shows DK-1's entry:\n%s", m.View())
			}
		}},
		"events.FocusMsg": {setup: func(t *testing.T, m *Model) {
			m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: []ledger.Event{
				ledger.NewEvent(fixedNow, "DK-1", "R", "S1", ledger.EventStepStarted, ledger.SeverityInfo, ledger.ObjectOf("marker", "one")),
				ledger.NewEvent(fixedNow, "DK-2", "R", "S1", ledger.EventStepStarted, ledger.SeverityInfo, ledger.ObjectOf("marker", "two")),
			}}})
		}, msg: events.FocusMsg{TaskID: "DK-2"}, check: func(t *testing.T, m *Model, _ string) {
			viewHas("1 of 2 DK-2")(t, m, "")
		}},
		"live.LogMsg": {setup: func(t *testing.T, m *Model) {
			m.Logs().Open(logview.Source{Task: "DK-1", Run: "R", Step: "S1", Dir: "/demo/x"})
		}, msg: live.LogMsg{Path: "/demo/x/stdout.log", Size: 19, Data: []byte("hello from the log\n"), Reset: true},
			check: viewHas("hello from the log")},
		"pipeline.FocusMsg": {setup: func(t *testing.T, m *Model) {
			m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Snapshot: fixtureSnapshot()}})
		}, msg: pipeline.FocusMsg{TaskID: "DK-OTHER"}, check: viewHas("current run: DK-1")},
		"input.TargetMsg": {msg: input.TargetMsg{Info: "→ DK-7 (follow-up)"}, check: viewHas("→ DK-7 (follow-up)")},
		"events.CopyMsg": {msg: events.CopyMsg{Text: `{"reason_code":"X"}`, What: "step failed"},
			check: func(t *testing.T, m *Model, _ string) {
				viewHas("Copied the payload of the step failed event")(t, m, "")
			}},
		"attention.DesktopMsg": {msg: attention.DesktopMsg{Err: errors.New("no notification daemon")},
			check: func(t *testing.T, m *Model, log string) {
				if !strings.Contains(log, "no notification daemon") || strings.Contains(m.View(), "no notification daemon") {
					t.Errorf("a failed built-in notification must be logged, not shown; log:\n%s", log)
				}
			}},
		"attention.NotifiedMsg": {msg: attention.NotifiedMsg{Err: errors.New("notify-send is missing")},
			check: viewHas("notify-send is missing")},
		"attention.StateMsg": {msg: attention.StateMsg{State: attention.State{Need: attention.Blocked, TaskID: "DK-9"}},
			check: viewHas("DK-9 is blocked")},
		"issues.LoadedMsg": {setup: func(t *testing.T, m *Model) { m.issues.Show() }, msg: issues.LoadedMsg{Has: true, Issues: []roster.IssueView{
			{ID: 4, Title: "Login API", Role: "backend", State: roster.IssueRunning},
			{ID: 6, Title: "Test login", Role: "qa", State: roster.IssueBlocked, BlockedBy: []int64{4}},
		}}, check: func(t *testing.T, m *Model, _ string) {
			viewHas("Test login  ← #4")(t, m, "")
		}},
		"roles.LoadedMsg": {msg: roles.LoadedMsg{Has: true, Views: []roster.RoleView{
			{Role: "backend", Health: roster.HealthAlive, Lag: 3, Claimed: 2, Running: []int64{4}, Limit: 2, Queued: []int64{5}},
			{Role: "qa", Health: roster.HealthStale, Blocked: map[string][]int64{"#6": {4}}},
		}}, check: func(t *testing.T, m *Model, _ string) {
			viewHas("backend  lag 3  claimed 2  running 1/2  queued 1")(t, m, "")
			viewHas("blocked #6←#4")(t, m, "")
			viewHas("STALE")(t, m, "")
		}},
	}
}

// zhEnv is the test environment in Chinese.
func zhEnv() *component.Env {
	m := New(context.Background(), testOptions("zh-CN"))
	return m.env
}

// TestEveryMessageTypeIsRouted sends every message type a child's command
// can return (and every message the root tells a child) through the
// root's real Update, and checks that it reached its owner: the root
// routes by family, so none is lost to a forgotten list entry.
func TestEveryMessageTypeIsRouted(t *testing.T) {
	cases := routeCases(t)
	for _, name := range declaredMsgTypes(t) {
		if _, ok := cases[name]; !ok {
			t.Errorf("message type %s has no routing case: add one to routeCases", name)
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := reflect.TypeOf(c.msg).String(); got != name {
				t.Fatalf("case %s sends a %s", name, got)
			}
			log := &syncLog{}
			opts := testOptions("en")
			opts.Relay = newFakeRelay()
			opts.Controllers = &fakeControllers{}
			opts.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
			// Init is not run: the link stays in its first phase (probing)
			// until a case's messages move it.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			m := New(ctx, opts)
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			if c.setup != nil {
				c.setup(t, m)
			}
			_, cmd := m.Update(c.msg)
			if _, tick := c.msg.(live.TickMsg); !tick {
				runQuick(m, cmd) // a tick re-arms itself at once in tests
			}
			c.check(t, m, log.String())
		})
	}
}

// declaredMsgTypes lists the message types (named ...Msg) declared in the
// window's packages, as package.Type.
func declaredMsgTypes(t *testing.T) []string {
	_, files := parseCode(t)
	var out []string
	for _, cf := range files {
		for _, d := range cf.file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || !strings.HasSuffix(ts.Name.Name, "Msg") || !ts.Name.IsExported() {
					continue
				}
				if _, isStruct := ts.Type.(*ast.StructType); isStruct {
					out = append(out, cf.file.Name.Name+"."+ts.Name.Name)
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d message types: %q", len(out), out)
	}
	return out
}

// TestTakeoverRestoresContextThroughTheRoot: a HANDOFF_APPLIED event in
// the ledger makes the relay context read the handoff package in a
// command, and the root routes its HandoffMsg back: the context restarts
// from the package.
func TestTakeoverRestoresContextThroughTheRoot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ledger.HandoffFile)
	doc, err := ledger.MarshalDocument(handoffPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := testOptions("en")
	opts.ContextPolicy = &relayctx.Policy{Manual: true, HandoffPath: path}
	m := newTestModel(t, opts, 120, 40)
	applied := ledger.NewEvent(fixedNow, "DK-1", "R-1", "S1", ledger.EventSystem, ledger.SeverityInfo,
		ledger.ObjectOf("operation", "HANDOFF_APPLIED"))
	feed(m, live.LedgerUpdate{Events: []ledger.Event{applied}})
	if n := m.RelayContext().Restores(); n != 1 {
		t.Fatalf("context restored %d times after the takeover, want 1", n)
	}
	if got := m.RelayContext().Context().Facts().LatestInstruction; got != "fix the login" {
		t.Errorf("latest instruction %q after the takeover", got)
	}
}
