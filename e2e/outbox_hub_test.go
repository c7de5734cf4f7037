package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/natsbox"
)

// TestOutboxOnHubKeepsEveryAcknowledgedChangeAcrossSIGKILL: a Lead's
// outbox on the real `daokit hub`, SIGKILLed amid a stream of Applies
// and restarted on the same directory and port. Every Apply the hub
// acknowledged is there after the restart, whole (its issue, comment,
// label and cursor together); an Apply cut off by the kill is all there
// or not at all; and the same Store goes on once the hub is back, with
// no issue id or event id given twice.
func TestOutboxOnHubKeepsEveryAcknowledgedChangeAcrossSIGKILL(t *testing.T) {
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	listen := strings.TrimPrefix(h.url, "nats://")
	ctx := context.Background()
	o := natsbox.Options{URL: h.url, Credentials: filepath.Join(dir, "admin.nk"), Root: "drill", Timeout: 2 * time.Second}
	if _, err := natsbox.Init(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := natsbox.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	change := func(k int) outbox.Change {
		return outbox.Change{Actor: "lead:drill", Reader: "lead:drill", UpTo: int64(k + 1), Trigger: fmt.Sprint("T-", k),
			Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: fmt.Sprint("issue ", k)}, {Kind: outbox.OpComment, Issue: -1, Body: fmt.Sprint("comment ", k)},
				{Kind: outbox.OpLabel, Issue: -1, Labels: []string{fmt.Sprint("k:", k)}}}}
	}
	n := 60
	if full() {
		n = 300
	}
	acked := map[int]outbox.Result{}
	reached := make(chan struct{})
	stopped := make(chan int, 1)
	go func() {
		for k := 0; ; k++ {
			actx, cancel := context.WithTimeout(ctx, 3*time.Second)
			r, err := s.Apply(actx, change(k))
			cancel()
			if err != nil {
				stopped <- k
				return
			}
			acked[k] = r
			if len(acked) == n {
				close(reached)
			}
		}
	}()
	select {
	case <-reached:
	case k := <-stopped:
		t.Fatalf("Apply failed before the kill, at change %d", k)
	}
	h.kill(t)
	cut := <-stopped

	if h = startHubProc(t, dir, listen); h.url != o.URL {
		t.Fatalf("restarted hub at %s, want %s", h.url, o.URL)
	}
	fresh, err := natsbox.Open(ctx, o)
	if err != nil {
		t.Fatalf("the outbox after SIGKILL: %v", err)
	}
	defer fresh.Close()
	lost := 0
	for k, r := range acked {
		is, err := fresh.Issue(ctx, r.Issues[0])
		cs, _ := fresh.Comments(ctx, r.Issues[0])
		if err != nil || is.Title != fmt.Sprint("issue ", k) || !is.HasLabel(fmt.Sprint("k:", k)) || len(cs) != 1 || cs[0].ID != r.Comments[0] {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged changes lost or partial across SIGKILL", lost, len(acked))
	}
	cur, _ := fresh.Cursor(ctx, "lead:drill")
	if cur < int64(len(acked)) {
		t.Fatalf("cursor %d after %d acknowledged changes", cur, len(acked))
	}
	// The change the kill cut off is whole or absent.
	all, _ := fresh.List(ctx, outbox.Query{})
	for _, is := range all {
		cs, _ := fresh.Comments(ctx, is.ID)
		if len(cs) != 1 || len(is.Labels) != 1 {
			t.Fatalf("a partial change: %+v with %d comments", is, len(cs))
		}
	}
	t.Logf("%d changes acknowledged before SIGKILL, %d stored after restart (the kill cut change %d)", len(acked), len(all), cut)

	// The Lead's Store goes on once it has reconnected (each try waits
	// for the hub's answer up to the Store's timeout, so this loop does
	// not spin); the replay of its cut-off change is answered once.
	deadline := time.Now().Add(20 * time.Second)
	var r outbox.Result
	for {
		r, err = s.Apply(ctx, change(cut))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Store never came back after the hub's restart: %v", err)
		}
	}
	if len(all) > len(acked) && !r.Stale {
		t.Fatalf("the cut-off change was stored, and its replay was not refused as stale: %+v", r)
	}
	next, err := s.Apply(ctx, change(cut+1))
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := fresh.Head(ctx); next.Events[len(next.Events)-1] != head {
		t.Fatalf("event ids after the restart: %v, head %d", next.Events, head)
	}
	if is, _ := fresh.List(ctx, outbox.Query{}); len(is) != int(next.Issues[0]) {
		t.Fatalf("%d issues, the newest #%d: an id given twice or skipped", len(is), next.Issues[0])
	}
}

// TestTeamExampleOnHub runs the example team (examples/team/run.sh, as
// `make team-script` does) with its outbox on a real `daokit hub`:
// the same three issues, blocked, unblocked and closed with evidence,
// through Leads that share nothing but the hub.
func TestTeamExampleOnHub(t *testing.T) {
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	example, err := os.ReadFile(filepath.Join("..", "examples", "team", "workflow.toml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := strings.Replace(string(example), "backend = \"sqlite\"\npath = \".daokit/outbox.db\"\n",
		fmt.Sprintf("backend = \"nats\"\nurl = %q\nroot = \"team-example\"\ncredentials = %q\n", h.url, filepath.Join(dir, "admin.nk")), 1)
	if wf == string(example) {
		t.Fatal("the example's [outbox] section changed; this test rewrites it")
	}
	wfPath := filepath.Join(t.TempDir(), "workflow.toml")
	if err := os.WriteFile(wfPath, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "examples", "team", "run.sh"), root)
	cmd.Env = append(os.Environ(), "DAOKIT="+daokit, "DAOKIT_LANG=en", "TEAM_WORKFLOW="+wfPath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("team example on the hub failed: %v\n%s", err, out)
	}
	for _, want := range []string{"BlockedBy: #1", "Unblocked", "IssueRef: #3", "Changes: commit sim-",
		"#3     closed  lead:qa", "Roles:", "integrator  alive"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("example output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "team", ".daokit", "outbox.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a SQLite outbox was made beside the hub's: %v", err)
	}
}
