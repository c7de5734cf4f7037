package events

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
)

var at = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func asciiEnv(lang string) *component.Env { return componenttest.Env(lang, at) }

// demoRun is the events of a run as the controller writes them, with the
// empty and default fields the issue saw printed.
func demoRun() []ledger.Event {
	ev := func(d int, typ, sev string, kv ...any) ledger.Event {
		return ledger.NewEvent(at.Add(time.Duration(d)*time.Second), "DK-1", "R-1", "S1", typ, sev, ledger.ObjectOf(kv...))
	}
	return []ledger.Event{
		ev(0, ledger.EventSystem, ledger.SeverityInfo, "operation", "INSTRUCTION_RECEIVED", "message", "修复登录页面"),
		ev(1, ledger.EventSystem, ledger.SeverityInfo, "operation", "RUN_STATE", "from", "idle", "to", "waiting", "reason_code", "", "lane", "worker"),
		ev(2, ledger.EventStepStarted, ledger.SeverityInfo, "lane", "worker", "pid", 4242, "attempt", 1),
		ev(3, ledger.EventSystem, ledger.SeverityInfo, "operation", "WORKER_OUTPUT", "dropped", 0,
			"lines", []any{ledger.ObjectOf("stream", "stdout", "line", "go test ./... ok")}),
		ev(4, ledger.EventStepCompleted, ledger.SeverityInfo, "exit_code", 0, "signal", "", "duration_ms", 1020, "lines", 15),
		ev(5, ledger.EventSystem, ledger.SeverityWarn, "operation", "RUN_STATE", "from", "generating", "to", "cancelled",
			"reason_code", "WORKER_CANCELLED", "lane", "worker"),
	}
}

// TestEventPaneGolden: the event pane of a demo run in both languages at
// 80×24 and 160×48 (the pane as the window shows it alone at that size):
// run-state changes in words, no empty or default fields, every line as
// wide as the pane.
func TestEventPaneGolden(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, sz[0], sz[1]), func(t *testing.T) {
				m := New(asciiEnv(lang), 100)
				m.SetSize(sz[0], sz[1])
				m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: demoRun(), ReadAt: at}})
				v := m.View()
				lines := strings.Split(v, "\n")
				if len(lines) != sz[1] {
					t.Errorf("%d lines, want %d", len(lines), sz[1])
				}
				for _, l := range lines {
					if text.Width(l) != sz[0] {
						t.Fatalf("line %d cells, want %d: %q", text.Width(l), sz[0], l)
					}
				}
				for _, noise := range []string{"reason_code= ", "signal=", "dropped=0", "-> "} {
					if strings.Contains(v, noise) {
						t.Errorf("the pane prints %q:\n%s", noise, v)
					}
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// TestWorkerOutputFoldsPerStep: a run of worker output of one step is
// one row saying how many lines it stands for; "o" unfolds them all.
func TestWorkerOutputFoldsPerStep(t *testing.T) {
	t.Parallel()
	m := New(asciiEnv("en"), 100)
	m.SetSize(120, 30)
	m.SetFocused(true)
	var evs []ledger.Event
	out := func(step string, i int) ledger.Event {
		return ledger.NewEvent(at.Add(time.Duration(i)*time.Second), "DK-1", "R-1", step, ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "lines", []any{ledger.ObjectOf("stream", "stdout", "line", fmt.Sprintf("line %d", i))}))
	}
	for i := range 10 {
		evs = append(evs, out("S1", i))
	}
	evs = append(evs, demoRun()[2])
	for i := 10; i < 14; i++ {
		evs = append(evs, out("S2", i))
	}
	m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: evs, ReadAt: at}})
	if n := m.visible(); n != 3 {
		t.Fatalf("%d rows, want 3 (S1 output, step started, S2 output)", n)
	}
	v := m.View()
	for _, s := range []string{"line 9", "(10 lines, o unfolds)", "line 13", "(4 lines"} {
		if !strings.Contains(v, s) {
			t.Errorf("folded view lacks %q:\n%s", s, v)
		}
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("o")})
	if n := m.visible(); n != 15 || strings.Contains(m.View(), "unfolds") {
		t.Errorf("unfolded: %d rows, want 15", n)
	}
}
