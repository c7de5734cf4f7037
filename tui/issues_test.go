package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// issuesRoot is teamRoot with three issues as the Leads leave them:
// #1 backend running, #2 qa blocked by #1 (said in the qa Lead's
// comment; no status file of the qa Lead names it), #3 backend done.
func issuesRoot(t *testing.T) string {
	root := teamRoot(t)
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	ctx := context.Background()
	blocked := outbox.Mailbox{Text: "Blocked until the API is there.", Fields: map[string]string{outbox.FieldBlockedBy: "#1"}}
	for _, c := range []outbox.Change{
		{Actor: "person", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "Login API", Labels: []string{roster.To("backend")}}}},
		{Actor: "person", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "Test login", Body: "End-to-end test of the login.", Labels: []string{roster.To("qa")}}}},
		{Actor: "person", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "Rate limits", Labels: []string{roster.To("backend")}}}},
		{Actor: roster.Actor("backend"), Ops: []outbox.Op{{Kind: outbox.OpAssign, Issue: 1, Assignee: roster.Actor("backend")},
			{Kind: outbox.OpLabel, Issue: 1, Labels: []string{roster.LabelRunning}}}},
		{Actor: roster.Actor("qa"), Ops: []outbox.Op{{Kind: outbox.OpAssign, Issue: 2, Assignee: roster.Actor("qa")},
			{Kind: outbox.OpLabel, Issue: 2, Labels: []string{roster.LabelBlocked}},
			{Kind: outbox.OpComment, Issue: 2, Body: blocked.Render()}}},
		{Actor: roster.Actor("backend"), Ops: []outbox.Op{{Kind: outbox.OpLabel, Issue: 3, Labels: []string{roster.LabelDone}},
			{Kind: outbox.OpClose, Issue: 3}}},
	} {
		if _, err := ob.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// openIssues opens the issues view with F6 through the root's Update and
// feeds it the outbox read its command does.
func openIssues(t *testing.T, m *Model) {
	t.Helper()
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyF6})
	runQuick(m, cmd)
	if !m.issues.Visible() {
		t.Fatal("F6 did not open the issues view")
	}
}

// F6 shows the team's issues by role and state, the blocked one with
// what blocks it; enter reads its thread; esc goes back, then closes.
// Every line fits 80×24, in English and in Chinese.
func TestIssuesViewShowsABlockedIssueAndWhatBlocksIt(t *testing.T) {
	root := issuesRoot(t)
	for _, tc := range []struct{ lang, blocked, running, done, blockedBy string }{
		{"en", "blocked", "running", "done", "blocked by #1"},
		{"zh-CN", "阻塞", "运行中", "完成", "被 #1 阻塞"},
	} {
		opts := testOptions(tc.lang)
		opts.Root = root
		m := New(context.Background(), opts)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		openIssues(t, m)
		frame := m.View()
		checkFrame(t, frame, 80, 24, tc.lang+" list")
		for _, want := range []string{"backend", "qa", "#1", "Login API", tc.running, tc.blocked, "Test login", "← #1", "#3", tc.done} {
			if !strings.Contains(frame, want) {
				t.Fatalf("%s: the list lacks %q:\n%s", tc.lang, want, frame)
			}
		}
		// backend's issues come first (#1 running, #3 done), then qa's.
		press(t, m, "down", "down")
		if got := m.issues.Target(); got != 2 {
			t.Fatalf("%s: the cursor is on #%d, want #2", tc.lang, got)
		}
		press(t, m, "enter")
		frame = m.View()
		checkFrame(t, frame, 80, 24, tc.lang+" thread")
		for _, want := range []string{"#2 Test login", tc.blockedBy, "End-to-end test of the login.", "lead:qa", "BlockedBy: #1"} {
			if !strings.Contains(frame, want) {
				t.Fatalf("%s: the thread lacks %q:\n%s", tc.lang, want, frame)
			}
		}
		press(t, m, "esc")
		if !m.issues.Visible() || m.issues.Reading() {
			t.Fatalf("%s: esc did not go back to the list", tc.lang)
		}
		press(t, m, "esc")
		if m.issues.Visible() {
			t.Fatalf("%s: esc did not close the view", tc.lang)
		}
	}
}

// With the issues view open, letters are the message box's: a comment,
// a label, a retry and a close typed there are forwarded to the
// controller for the issue shown (the window writes nothing itself), and
// an explicit #N wins.
func TestIssueChangesAreForwardedFromTheInputLine(t *testing.T) {
	root := issuesRoot(t)
	opts := testOptions("en")
	opts.Root = root
	r := newFakeRelay()
	opts.Relay = r
	m := New(context.Background(), opts)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	openIssues(t, m)
	press(t, m, "down", "down", "enter")
	for _, line := range []string{"/comment looks good, k?", "/label needs-api", "/retry", "/close #3 duplicate"} {
		typeText(m, line)
		press(t, m, "enter")
	}
	calls := strings.Join(r.Calls(), "\n")
	for _, want := range []string{"control:comment:#2 looks good, k?", "control:label:#2 needs-api",
		"control:comment:#2 /retry", "control:close:#3 duplicate"} {
		if !strings.Contains(calls, want) {
			t.Errorf("relay calls lack %q:\n%s", want, calls)
		}
	}
	if !m.issues.Visible() || !m.issues.Reading() {
		t.Error("sending a change closed the thread")
	}
	// Without the view, /retry is a run's retry again.
	press(t, m, "f6")
	typeText(m, "/retry")
	press(t, m, "enter")
	if last := r.Calls()[len(r.Calls())-1]; last != "control:retry" {
		t.Errorf("/retry with the view closed sent %q", last)
	}
}

// The full help has the issues view's keys as a group of their own
// (the keys it gets are the ones listed there: keyroute.go).
func TestIssuesViewKeysAreInTheHelp(t *testing.T) {
	opts := testOptions("en")
	m := New(context.Background(), opts)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	found := false
	for _, g := range m.fullHelp() {
		if g.Title == m.env.T("tui.issues.help") {
			for _, b := range g.Keys {
				found = found || b.Help().Key == "f6"
			}
		}
	}
	if !found {
		t.Fatal("the full help has no issues view group with its keys")
	}
}
