package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/natsbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/tui/live"
)

// hubTeamRoot is a root whose team keeps its outbox on an embedded hub
// (backend = "nats", its credentials named in workflow.toml), with one
// issue filed; it returns the root and a writer of that outbox, as a
// Lead on another host has.
func hubTeamRoot(t *testing.T) (string, outbox.Backend) {
	t.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	o := natsbox.Options{URL: h.ClientURL(), Credentials: h.CredentialsFile(), Root: "team-window"}
	if _, err := natsbox.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	w, err := natsbox.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[team]\noutbox_root = \"team\"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	wf := fmt.Sprintf("[outbox]\nbackend = \"nats\"\nurl = %q\nroot = %q\ncredentials = %q\n[roles.backend]\n", o.URL, o.Root, o.Credentials)
	os.WriteFile(filepath.Join(root, "team", team.FileName), []byte(wf), 0o644)
	file(t, w, "Login API")
	return root, w
}

// file files an issue for the backend role.
func file(t *testing.T, w outbox.Backend, title string) {
	t.Helper()
	if _, err := w.Apply(context.Background(), outbox.Change{Actor: "person",
		Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: title, Labels: []string{roster.To("backend")}}}}); err != nil {
		t.Fatal(err)
	}
}

// The issues view and the roles pane read a team's outbox on a hub
// (through the opener the command gives, read-only): F6 lists the hub's
// issues, and one a Lead files afterwards shows at the view's next
// read, all through the root's Update; the roles pane does not call the
// outbox missing. Without an opener that reaches hubs the view says so
// rather than that the outbox is missing.
func TestIssuesViewReadsAnOutboxOnAHub(t *testing.T) {
	root, w := hubTeamRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions("en")
	opts.Root = root
	opts.OpenOutbox = func(ctx context.Context, wf *team.Workflow) (outbox.Backend, error) {
		return pick.Open(ctx, wf, "", outbox.Options{ReadOnly: true})
	}
	m := New(ctx, opts)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	openIssues(t, m)
	if v := m.View(); !strings.Contains(v, "Login API") || strings.Contains(strings.ToLower(v), "missing") {
		t.Fatalf("the hub's issue is not listed:\n%s", v)
	}
	file(t, w, "Rate limits")
	// The view reads again on the window's tick; the read runs in a
	// command and its answer goes through the root's Update.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(m.View(), "Rate limits") {
		if time.Now().After(deadline) {
			t.Fatalf("the issue filed on the hub never showed:\n%s", m.View())
		}
		_, cmd := m.Update(live.TickMsg{Now: time.Now()})
		runQuick(m, cmd)
	}
	if got := len(m.issues.Issues()); got != 2 {
		t.Errorf("%d issues listed, want 2", got)
	}
	// The roles pane, under the view, read the same outbox on the ticks.
	m.Update(tea.KeyMsg{Type: tea.KeyF6})
	if v := m.View(); !m.roles.Has() || !strings.Contains(v, "backend") || strings.Contains(strings.ToLower(v), "missing") {
		t.Errorf("the roles pane does not read the hub's outbox:\n%s", v)
	}

	// A window given no opener never claims the outbox is missing.
	bare := testOptions("en")
	bare.Root = root
	b := New(ctx, bare)
	b.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	openIssues(t, b)
	if v := b.View(); strings.Contains(strings.ToLower(v), "missing") || !strings.Contains(v, "cannot read an outbox on a hub") {
		t.Errorf("a window without a hub opener does not say it cannot read the hub:\n%s", v)
	}
}
