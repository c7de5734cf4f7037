package lead

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// project is an outbox root with a workflow.toml, and its outbox.
type project struct {
	t   testing.TB
	dir string
	wf  *team.Workflow
	ob  *outbox.SQLite
}

func newProject(t testing.TB, workflow string, wake time.Duration) *project {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(workflow), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := team.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Init(wf.DBPath(), false); err != nil {
		t.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{WakeInterval: wake})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ob.Close() })
	os.MkdirAll(wf.MemoryPath(), 0o755)
	return &project{t: t, dir: dir, wf: wf, ob: ob}
}

func (p *project) lead(role string, hard int, mod func(*Options)) *Lead {
	p.t.Helper()
	o := Options{Role: role, Workflow: p.wf, HardCap: hard, Backend: p.ob, WorkerArgv: testWorkerArgv()}
	if mod != nil {
		mod(&o)
	}
	l, err := New(context.Background(), o)
	if err != nil {
		p.t.Fatal(err)
	}
	return l
}

// file opens an issue as a person and returns its id.
func (p *project) file(title, body string, labels ...string) int64 {
	p.t.Helper()
	r, err := p.ob.Apply(context.Background(), outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: title, Body: body, Labels: labels}}})
	if err != nil {
		p.t.Fatal(err)
	}
	return r.Issues[0]
}

func (p *project) do(actor string, ops ...outbox.Op) {
	p.t.Helper()
	if _, err := p.ob.Apply(context.Background(), outbox.Change{Actor: actor, Ops: ops}); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) issue(id int64) outbox.Issue {
	p.t.Helper()
	is, err := p.ob.Issue(context.Background(), id)
	if err != nil {
		p.t.Fatal(err)
	}
	return is
}

func (p *project) comments(id int64) []outbox.Comment {
	p.t.Helper()
	cs, err := p.ob.Comments(context.Background(), id)
	if err != nil {
		p.t.Fatal(err)
	}
	return cs
}

// waitFor polls cond until it holds or the deadline passes.
func (p *project) waitFor(what string, d time.Duration, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
}

// runLead runs l in the background until the test ends.
func runLead(t testing.TB, l *Lead) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Stopped while a forge backend's request was in flight, Run
		// returns that request's "context canceled": the stop, no fault.
		if err := l.Run(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("lead: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func fieldsOf(cs []outbox.Comment, author string) []map[string]string {
	var out []map[string]string
	for _, c := range cs {
		if c.Author == author {
			out = append(out, outbox.ParseMailbox(c.Body).Fields)
		}
	}
	return out
}

func hasText(cs []outbox.Comment, s string) bool {
	for _, c := range cs {
		if strings.Contains(c.Body, s) {
			return true
		}
	}
	return false
}

// leadProcs are a drill's Lead processes, one per role r0, r1, …, each
// this test binary's "lead" subcommand on the project in dir.
type leadProcs struct {
	t     *testing.T
	dir   string
	mu    sync.Mutex
	procs []*exec.Cmd
}

// startLeadProcs starts the Leads of roles r0 … r<roles-1> and kills
// them (and waits for them) when the test ends.
func startLeadProcs(t *testing.T, dir string, roles int) *leadProcs {
	t.Helper()
	l := &leadProcs{t: t, dir: dir, procs: make([]*exec.Cmd, roles)}
	for r := range roles {
		l.start(r)
	}
	t.Cleanup(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, c := range l.procs {
			c.Process.Kill()
			c.Wait()
		}
	})
	return l
}

func (l *leadProcs) start(r int) {
	l.t.Helper()
	cmd := exec.Command(os.Args[0], "lead", l.dir, fmt.Sprintf("r%d", r))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.procs[r] = cmd
}

// restart stops role r's Lead with sig, waits for it to end and starts
// a new one in its place.
func (l *leadProcs) restart(r int, sig os.Signal) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.procs[r].Process.Signal(sig)
	l.procs[r].Wait()
	l.start(r)
}
