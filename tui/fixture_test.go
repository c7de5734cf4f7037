package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/theme"
)

func init() {
	// Pinned for every test: no colours in output, and the width policy
	// of a person who did not opt in, whatever LANG the machine has.
	lipgloss.SetColorProfile(termenv.Ascii)
	ApplyWidthPolicy(func(string) string { return "" })
}

// asciiStyles are the default theme rendered without colour.
func asciiStyles() *theme.Styles { return componenttest.Styles() }

// testOptions are the options of a window under test: fixed clock and
// zone, no tick, no relay.
func testOptions(lang string) Options {
	return Options{
		Root:   "/demo",
		Lang:   lang,
		Feed:   newFakeFeed(),
		Styles: asciiStyles(),
		Now:    func() time.Time { return fixedNow },
		Tick:   -1,
		Zone:   time.UTC,
	}
}

// newTestModel builds a window of size w×h whose life has already
// ended: every command it returns finishes at once, so tests run them
// inline (runQuick) and deliver feed messages themselves.
func newTestModel(t testing.TB, opts Options, w, h int) *Model {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := New(ctx, opts)
	runQuick(m, m.Init())
	m.Update(live.TickMsg{Now: fixedNow})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// feed delivers a ledger update as the feed would.
func feed(m *Model, u live.LedgerUpdate) {
	_, cmd := m.Update(live.LedgerMsg{Update: u})
	runQuick(m, cmd)
}

func ts(d time.Duration) string { return ledger.FormatTime(fixedNow.Add(d)) }

// fixturePipeline is a run in EXECUTE with a Chinese goal and three steps.
func fixturePipeline() ledger.PipelineState {
	p := ledger.NewPipelineState(fixedNow)
	p.TaskID, p.RunID = "DK-1A2B3C4D", "DK-1A2B3C4D_20261122T092000Z"
	p.Goal = "修复登录页面在移动端的布局错位，并补上回归测试"
	p.Status = ledger.StatusExecute
	p.CurrentStep = "S2"
	p.Steps = []ledger.Step{
		{ID: "S1", Title: "分析需求 Analyse the request", Category: "analysis", Goal: p.Goal},
		{ID: "S2", Title: "实现修改 Implement the change", Category: "implementation", Goal: p.Goal},
		{ID: "S3", Title: "验证并收集证据 Verify", Category: "verification", Goal: p.Goal},
	}
	p.RoleLifecycle = ledger.Lifecycle{}.
		With("orchestrator", "running").
		With("controller_lane", "controller").
		With("step:S1", "completed").
		With("step:S2", "dispatched:worker").
		With("route:active_lane", "worker").
		With("route:next_action", "wait_for_worker")
	return p
}

func fixtureHeartbeat() ledger.HeartbeatStatus {
	h := ledger.NewHeartbeatStatus(fixedNow)
	h.Status = ledger.HeartbeatWarning
	h.LastHeartbeatAt = ts(-16 * time.Minute)
	h.ReasonCode = "NO_OUTPUT_15M"
	h.WarningAfterSeconds, h.StaleAfterSeconds = 900, 1200
	return h
}

func fixtureLeases() ledger.Leases {
	l := ledger.NewLeases(fixedNow)
	l.Leases = []ledger.Lease{
		{Lane: "worker", StepID: "S2", TaskID: "DK-1A2B3C4D", RunID: "R", ThreadID: "thread-succ", PID: 4242,
			LeaseToken: "lease_a", Expiry: ts(4 * time.Minute), Status: ledger.LeaseActive,
			LastHeartbeatAt: ts(-time.Minute), CreatedAt: ts(-10 * time.Minute), UpdatedAt: ts(-time.Minute)},
		{Lane: "worker", StepID: "S2", TaskID: "DK-1A2B3C4D", RunID: "R", ThreadID: "thread-1", PID: 3131,
			LeaseToken: "lease_b", Expiry: ts(-2 * time.Minute), Status: ledger.LeaseTakenOver,
			LastHeartbeatAt: ts(-17 * time.Minute), CreatedAt: ts(-30 * time.Minute), UpdatedAt: ts(-3 * time.Minute)},
		{Lane: "controller", StepID: "S1", TaskID: "DK-1A2B3C4D", RunID: "R", ThreadID: "cli-99", PID: 99,
			LeaseToken: "lease_c", Expiry: ts(-20 * time.Minute), Status: ledger.LeaseExpired,
			LastHeartbeatAt: ts(-40 * time.Minute), CreatedAt: ts(-50 * time.Minute), UpdatedAt: ts(-20 * time.Minute)},
	}
	return l
}

// fixtureEvents are n events, the last few of every kind the panes colour.
func fixtureEvents(n int) []ledger.Event {
	mk := func(i int, typ, sev, step string, kv ...any) ledger.Event {
		e := ledger.NewEvent(fixedNow.Add(time.Duration(i-n)*time.Second), "DK-1A2B3C4D", "R", step, typ, sev, ledger.ObjectOf(kv...))
		e.EventID = fmt.Sprintf("evt_%032d", i)
		return e
	}
	var out []ledger.Event
	for i := 0; i < n; i++ {
		switch i % 6 {
		case 0:
			out = append(out, mk(i, ledger.EventSystem, ledger.SeverityInfo, "S1", "operation", "INSTRUCTION_RECEIVED", "message", "修复登录页面"))
		case 1:
			out = append(out, mk(i, ledger.EventStepStarted, ledger.SeverityInfo, "S2", "lane", "worker"))
		case 2:
			out = append(out, mk(i, ledger.EventHeartbeatWarning, ledger.SeverityWarn, "S2", "reason_code", "NO_OUTPUT_15M", "silence_seconds", 960))
		case 3:
			out = append(out, mk(i, ledger.EventLeaseTakeover, ledger.SeverityInfo, "", "reason_code", "HEARTBEAT_STALE", "adopted_step_ids", []string{"S2"}))
		case 4:
			out = append(out, mk(i, ledger.EventStepFailed, ledger.SeverityError, "S3", "reason_code", "LEASE_NOT_ADOPTED"))
		default:
			out = append(out, mk(i, ledger.EventStepCompleted, ledger.SeverityInfo, "S1", "message", "done: 3 files changed"))
		}
	}
	return out
}

// fixtureSnapshot is the whole ledger as loaded.
func fixtureSnapshot() *ledger.Snapshot {
	s := &ledger.Snapshot{Root: "/demo"}
	s.Pipeline.Value = fixturePipeline()
	s.Heartbeat.Value = fixtureHeartbeat()
	s.Leases.Value = fixtureLeases()
	return s
}

// fixtureUpdate is the first update of a feed over the fixture ledger.
func fixtureUpdate(events int) live.LedgerUpdate {
	return live.LedgerUpdate{Initial: true, Snapshot: fixtureSnapshot(), Events: fixtureEvents(events), ReadAt: fixedNow}
}
