package lead

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// The example team done on SQLite, its outbox exported to the service,
// the team switched to it: the Leads read everything the export brought
// (a backlog with people's comments to their roles) and answer none of
// it again: no effect, no write on the service.
func TestNoTriggerAnsweredTwiceAfterExport(t *testing.T) {
	for _, ff := range []forgeFake{githubForge(newGitHubFake(t)), gitlabForge(newGitLabFake(t))} {
		t.Run(ff.backend, func(t *testing.T) { switchAfterExport(t, ff) })
	}
}

func switchAfterExport(t *testing.T, ff forgeFake) {
	p := newProject(t, twoRoles, 50*time.Millisecond)
	api := p.file("Login API", "POST /login.", "to:backend")
	qa := p.file("Test login", "End to end.", "to:qa")
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: api, Body: "@backend mind the rate limit\n\nTrigger: T-ann"})
	p.do("bob", outbox.Op{Kind: outbox.OpComment, Issue: qa, Body: "@qa try it on mobile"})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	roles := []string{"backend", "qa", "integrator"}
	for _, role := range roles {
		l := p.lead(role, 2, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Run(ctx); err != nil {
				t.Errorf("lead %s: %v", role, err)
			}
		}()
	}
	p.waitFor("both closed, both comments read", 30*time.Second, func() bool {
		return p.issue(api).Closed && p.issue(qa).Closed && hasText(p.comments(api), "read comment") && hasText(p.comments(qa), "read comment")
	})
	cancel()
	wg.Wait()

	// The service had an issue of its own: the numbers move by one.
	ff.open("filed there", "before the move", "")
	ff.setToken(t)
	g, err := outbox.OpenGitHub(context.Background(), pick.ForgeConfig(forgeWorkflow(t, p.dir, ff), ff.token, outbox.Options{}))
	if ff.backend == team.BackendGitLab {
		g, err = outbox.OpenGitLab(context.Background(), pick.ForgeConfig(forgeWorkflow(t, p.dir, ff), ff.token, outbox.Options{}))
	}
	if err != nil {
		t.Fatal(err)
	}
	rep, err := outbox.Export(context.Background(), p.ob, g, outbox.ExportOptions{})
	g.Close()
	if err != nil || rep.Numbers[api] != api+1 || rep.Numbers[qa] != qa+1 {
		t.Fatalf("export: %+v %v", rep, err)
	}
	sent := len(ff.requests())

	wf := forgeWorkflow(t, p.dir, ff)
	// Then once more on a mirror rebuilt from the service alone: the
	// answered triggers come back from the markers.
	for _, rebuilt := range []bool{false, true} {
		if rebuilt {
			files, _ := filepath.Glob(wf.DBPath() + "*")
			for _, f := range files {
				os.Remove(f)
			}
		}
		leadsAnswerNothing(t, ff, wf, roles, sent)
	}
	if n := ff.count(api+1, "read comment"); n != 1 {
		t.Fatalf("%d acknowledgements of ann's comment on %s", n, ff.backend)
	}
}

// leadsAnswerNothing starts the Leads of roles on wf's outbox, has each
// read to the head, and fails on any effect or any write since sent.
func leadsAnswerNothing(t *testing.T, ff forgeFake, wf *team.Workflow, roles []string, sent int) {
	t.Helper()
	for _, role := range roles {
		ob, err := pick.Open(context.Background(), wf, ff.token, outbox.Options{WakeInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer ob.Close()
		// What a Lead's Wait does when the mirror is due: read the service.
		if err := ob.(*outbox.Forge).Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		l, err := New(context.Background(), Options{Role: role, Workflow: wf, HardCap: 2, Backend: ob, WorkerArgv: testWorkerArgv()})
		if err != nil {
			t.Fatal(err)
		}
		// As Run starts: what the Lead holds is recovered, then the
		// outbox read to its head.
		if err := l.Recover(context.Background()); err != nil {
			t.Fatal(err)
		}
		n, err := l.Step(context.Background())
		if err != nil || n != 0 {
			t.Fatalf("%s on %s answered %d old triggers again (%v)", role, ff.backend, n, err)
		}
		head, _ := ob.Head(context.Background())
		if l.cursor != head || head == 0 {
			t.Fatalf("%s read to %d of %d", role, l.cursor, head)
		}
	}
	for _, r := range ff.requests()[sent:] {
		if r.Method != "GET" {
			t.Fatalf("a Lead wrote to %s after the switch: %s %s %s", ff.backend, r.Method, r.Path, r.Body)
		}
	}
}

// forgeWorkflow switches the team at dir to ff's repository (the
// export's mirror is where this workflow.toml's is).
func forgeWorkflow(t *testing.T, dir string, ff forgeFake) *team.Workflow {
	t.Helper()
	text := fmt.Sprintf("[outbox]\nbackend = %q\nrepo = %q\napi_url = %q\n%s", ff.backend, ff.repo, ff.url, twoRoles)
	if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := team.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(wf.DBPath(), filepath.Join(dir, ".daokit", ff.backend)) {
		t.Fatalf("mirror at %s", wf.DBPath())
	}
	return wf
}
