package leases

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/vocab"
)

var now = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func env(lang string) *component.Env { return componenttest.Env(lang, now) }

// register is a long-lived register: two active leases with long holder
// names and 26 ended ones.
func register() ledger.Leases {
	ts := func(d time.Duration) string { return ledger.FormatTime(now.Add(d)) }
	l := ledger.NewLeases(now)
	l.Leases = append(l.Leases,
		ledger.Lease{Lane: "controller", StepID: "controller", TaskID: "T", RunID: "R", ThreadID: "controller-7f3a9c2e-succession", PID: 21165,
			LeaseToken: "a", Expiry: ts(20 * time.Second), Status: ledger.LeaseActive, UpdatedAt: ts(-time.Second)},
		ledger.Lease{Lane: "worker-reviewer", StepID: "S12", TaskID: "T", RunID: "R", ThreadID: "worker-reviewer-0b91d4", PID: 4242,
			LeaseToken: "b", Expiry: ts(4 * time.Minute), Status: ledger.LeaseActive, UpdatedAt: ts(-2 * time.Second)})
	for i := range 26 {
		st := ledger.LeaseReleased
		if i%5 == 0 {
			st = ledger.LeaseTakenOver
		}
		l.Leases = append(l.Leases, ledger.Lease{Lane: "worker", StepID: fmt.Sprintf("S%d", i), TaskID: "T", RunID: "R",
			ThreadID: fmt.Sprintf("worker-%04d-thread", i), PID: 3000 + i, LeaseToken: fmt.Sprint(i), Expiry: ts(-time.Hour),
			Status: st, UpdatedAt: ts(-time.Duration(i+3) * time.Minute)})
	}
	return l
}

func pane(lang string, w, h int) *Model {
	m := New(env(lang))
	m.SetSize(w, h)
	m.SetFocused(true)
	snap := &ledger.Snapshot{}
	snap.Leases.Value = register()
	m.Update(live.TickMsg{Now: now})
	m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Snapshot: snap, ReadAt: now}})
	return m
}

// TestLeaseTableGolden: active leases only by default, with the count of
// ended ones; the toggle shows them; long names are cut in the middle,
// never wider than the pane; both languages, 80×24 and 160×48 (the pane
// as the window shows it alone at that size).
func TestLeaseTableGolden(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, sz[0], sz[1]), func(t *testing.T) {
				m := pane(lang, sz[0], sz[1])
				active := m.View()
				m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
				all := m.View()
				for _, v := range []string{active, all} {
					lines := strings.Split(v, "\n")
					if len(lines) != sz[1] {
						t.Errorf("%d lines, want %d", len(lines), sz[1])
					}
					for _, l := range lines {
						if text.Width(l) != sz[0] {
							t.Fatalf("line %d cells wide, want %d: %q", text.Width(l), sz[0], l)
						}
					}
				}
				// The status reads in the pane's language (vocab's label of
				// the stored RELEASED), never as stored.
				released := vocab.LeaseStatusReleased.Label(i18n.MustNew(lang))
				if strings.Contains(active, released) || !strings.Contains(all, released) || strings.Contains(all, "RELEASED") {
					t.Errorf("ended leases (%q) shown by default, or not after the toggle, or raw", released)
				}
				golden.RequireEqual(t, []byte(active+"\n---\n"+all))
			})
		}
	}
}

// TestMidFitKeepsBothEnds: a long thread name keeps its start and its end.
func TestMidFitKeepsBothEnds(t *testing.T) {
	t.Parallel()
	got := midFit("controller-7f3a9c2e-succession", 16, "…")
	if text.Width(got) != 16 || !strings.HasPrefix(got, "control") || !strings.HasSuffix(got, "cession") {
		t.Errorf("midFit = %q", got)
	}
	if got := midFit("worker", 10, "…"); got != "worker    " {
		t.Errorf("short value %q", got)
	}
}
