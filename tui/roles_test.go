package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/tui/live"
)

// teamRoot is a root with a team of two roles, an outbox, and a status
// file for the backend Lead (this process, so that it counts as alive).
func teamRoot(t *testing.T) string {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[team]\noutbox_root = \"team\"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", team.FileName), []byte("[roles.backend]\n[roles.qa]\ndepends_on = [\"backend\"]\n"), 0o644)
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Init(wf.DBPath(), false); err != nil {
		t.Fatal(err)
	}
	st := roster.Status{Role: "backend", PID: os.Getpid(), Limit: 2, Running: []int64{1}, Queued: []int64{}, Time: time.Now(),
		Blocked: map[string][]int64{"#3": {1}}, RateWait: &outbox.RateWait{Until: time.Now().Add(time.Hour), Reason: "primary"}}
	data, _ := json.Marshal(st)
	os.MkdirAll(roster.StatusDir(wf), 0o755)
	if err := os.WriteFile(roster.StatusPath(roster.StatusDir(wf), "backend"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The window finds the team of its root on the tick (the read runs in a
// command) and draws the roles pane under the leases, in both languages.
func TestRolesPaneShowsTheTeam(t *testing.T) {
	root := teamRoot(t)
	for _, tc := range []struct{ lang, alive, down, blocked, wait string }{
		{"en", "alive", "down", "blocked #3←#1", "GitHub: waiting until"},
		{"zh-CN", "存活", "未运行", "阻塞 #3←#1", "GitHub：等待至"},
	} {
		opts := testOptions(tc.lang)
		opts.Root = root
		// A live context: the pane's command reads the outbox with it.
		m := New(context.Background(), opts)
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		// The pane's own tick command does the read; its message goes
		// through the root's routing. (The root's other tick commands,
		// such as the controller probe, are not run here.)
		_, cmd := m.roles.Update(live.TickMsg{Now: time.Now()})
		m.Update(cmd())
		frame := m.View()
		for _, want := range []string{tc.alive, tc.down, tc.blocked, tc.wait, "backend", "qa"} {
			if !strings.Contains(frame, want) {
				t.Fatalf("%s: frame lacks %q:\n%s", tc.lang, want, frame)
			}
		}
		checkFrame(t, frame, 160, 48, tc.lang)
	}
}

// The roles pane says why a Lead is down (its exit record), and why the
// team is off: a broken workflow.toml (every problem), a refused outbox.
func TestRolesPaneSaysWhy(t *testing.T) {
	root := teamRoot(t)
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	if err := roster.WriteExit(roster.StatusDir(wf), roster.Exit{Role: "qa", PID: 1 << 30, Reason: "OUTBOX_EMPTY", Detail: wf.DBPath()}); err != nil {
		t.Fatal(err)
	}
	frame := func(lang string) string {
		opts := testOptions(lang)
		opts.Root = root
		m := New(context.Background(), opts)
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 48})
		_, cmd := m.roles.Update(live.TickMsg{Now: time.Now()})
		m.Update(cmd())
		f := m.View()
		checkFrame(t, f, 200, 48, lang)
		return f
	}
	if f := frame("en"); !strings.Contains(f, "down: the outbox database") {
		t.Fatalf("no reason for the down Lead:\n%s", f)
	}
	if f := frame("zh-CN"); !strings.Contains(f, "未运行：outbox 数据库是空的") {
		t.Fatalf("no reason for the down Lead (zh-CN):\n%s", f)
	}
	os.WriteFile(filepath.Join(root, "team", team.FileName), []byte("[roles.backend]\nrole_rep = 1\n[roles.qa]\ndepends_on = [\"x\"]\n"), 0o644)
	if f := frame("en"); !strings.Contains(f, "team off:") || !strings.Contains(f, "workflow.toml: unknown setting roles.backend") ||
		!strings.Contains(f, "workflow.toml: roles.qa.depends_on[0]") {
		t.Fatalf("no workflow problems:\n%s", f)
	}
	os.WriteFile(filepath.Join(root, "team", team.FileName), []byte("[roles.backend]\n[roles.qa]\n"), 0o644)
	os.Truncate(wf.DBPath(), 0)
	if f := frame("en"); !strings.Contains(f, "team off: the outbox database is empty (0 bytes)") {
		t.Fatalf("no outbox problem:\n%s", f)
	}
}

// A root without a team has no roles pane: the layout is unchanged.
func TestNoTeamNoRolesPane(t *testing.T) {
	opts := testOptions("en")
	opts.Root = t.TempDir()
	m := newTestModel(t, opts, 160, 48)
	_, cmd := m.Update(live.TickMsg{Now: fixedNow})
	runQuick(m, cmd)
	if strings.Contains(m.View(), "Roles") || m.lay.rolesH != 0 {
		t.Fatal("a roles pane without a team")
	}
}

// "/issue ROLE TITLE" is forwarded to the controller as a control request
// carrying the role and the title; the window writes nothing itself.
func TestIssueIsForwarded(t *testing.T) {
	opts := testOptions("en")
	r := newFakeRelay()
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	runQuick(m, m.submit("/issue backend Rate limits"))
	calls := strings.Join(r.Calls(), " ")
	if !strings.Contains(calls, "control:issue:backend Rate limits") {
		t.Errorf("relay calls: %s", calls)
	}
}
