package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/relayctx"
)

// /constraint typed in the window keeps, lists and removes constraints in
// the relay context, and sends nothing to the controller; an
// instruction's "Constraint:" lines are kept too.
func TestConstraintCommand(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	path := filepath.Join(t.TempDir(), relayctx.FileName)
	opts.Context = relayctx.FileStore{Path: path}
	m := newTestModel(t, opts, 160, 48)
	submit := func(text string) {
		t.Helper()
		_, cmd := m.Update(input.SubmittedMsg{Text: text})
		runQuick(m, cmd)
	}
	typeText(m, "/constraint keep the API stable")
	press(t, m, "enter")
	if v := m.View(); !strings.Contains(v, "Constraint 1 kept: keep the API stable") {
		t.Fatalf("no note of the constraint:\n%s", v)
	}
	if calls := r.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.Contains(c, "constraint") }) {
		t.Fatalf("/constraint went to the controller: %q", calls)
	}
	submit("fix the login page\nConstraint: no new dependencies\n约束：不要改数据库")
	want := []string{"keep the API stable", "no new dependencies", "不要改数据库"}
	if got := m.RelayContext().Context().Facts().Constraints; !slices.Equal(got, want) {
		t.Fatalf("constraints %q, want %q", got, want)
	}
	submit("/constraint")
	if v := m.View(); !strings.Contains(v, "Constraints kept: 1. keep the API stable; 2. no new dependencies; 3. 不要改数据库") {
		t.Fatalf("no list:\n%s", v)
	}
	submit("/constraint -2")
	submit("/constraint -7")
	v := m.View()
	if !strings.Contains(v, "Constraint 2 removed: no new dependencies") || !strings.Contains(v, "There is no constraint 7 (2 kept") {
		t.Fatalf("removal notes:\n%s", v)
	}
	// The clock's flush writes it (a command, never Update itself).
	for range flushEvery {
		_, cmd := m.Update(live.TickMsg{Now: fixedNow})
		runQuickNoTick(m, cmd)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := compact.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Facts().Constraints; !slices.Equal(got, []string{"keep the API stable", "不要改数据库"}) {
		t.Fatalf("saved constraints %q\n%s", got, data)
	}
}

// A saved context whose blockers were removed by hand: the status bar
// marks the missing fact (in the person's language) until the ledger
// tells the blockers again.
func TestStatusBarMarksAMissingFact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, mark string }{{"en", "context lacks blockers"}, {"zh-CN", "上下文缺少阻塞"}} {
		t.Run(tc.lang, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), relayctx.FileName)
			doc := `{"relay_context": {"goal": "g", "constraints": ["c"], "latest_instruction": "i", "controller_route_summary": {"task_id": "DK-1"}}}`
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			opts := testOptions(tc.lang)
			opts.Context = relayctx.FileStore{Path: path}
			m := newTestModel(t, opts, 160, 48)
			if v := m.View(); !strings.Contains(v, tc.mark) {
				t.Fatalf("status bar lacks %q:\n%s", tc.mark, v)
			}
			snap := &ledger.Snapshot{}
			snap.Pipeline.Value = ledger.PipelineState{Goal: "g", Status: ledger.StatusBlocked, TaskID: "DK-1"}
			feed(m, live.LedgerUpdate{Snapshot: snap})
			if v := m.View(); strings.Contains(v, tc.mark) {
				t.Fatalf("the mark stayed after the ledger told the blockers:\n%s", v)
			}
			if got := m.RelayContext().Context().Facts().CurrentBlockers; !slices.Equal(got, []string{"status=BLOCKED"}) {
				t.Fatalf("blockers %q", got)
			}
		})
	}
}

// A compaction whose result lacks a fact (a pre-compact hook dropped the
// blockers) is marked when its result arrives through the root.
func TestSelfCheckAfterCompaction(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	out := &compact.Context{}
	out.SetFacts(compact.Facts{Goal: "g", Constraints: []string{}, LatestInstruction: "i", Route: ledger.Route{TaskID: "DK-1"}})
	_, cmd := m.Update(relayctx.CompactedMsg{Context: out})
	runQuick(m, cmd)
	if v := m.View(); !strings.Contains(v, "context lacks blockers") || strings.Contains(v, "lacks goal") {
		t.Fatalf("status bar after the compaction:\n%s", v)
	}
}

// Several missing facts are listed in the person's language.
func TestStatusBarListsMissingFactsInChinese(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("zh-CN"), 160, 48)
	out := &compact.Context{}
	out.SetFacts(compact.Facts{Goal: "g", LatestInstruction: "i"})
	_, cmd := m.Update(relayctx.CompactedMsg{Context: out})
	runQuick(m, cmd)
	if v := m.View(); !strings.Contains(v, "上下文缺少约束、阻塞、路由") {
		t.Fatalf("status bar after the compaction:\n%s", v)
	}
}
