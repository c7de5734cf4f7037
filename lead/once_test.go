package lead

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// onceProject is a role whose Worker waits for the test (it reads a
// FIFO), then notes its run in a trace file and prints its evidence.
type onceProject struct {
	*project
	fifo, trace string
}

func newOnceProject(t *testing.T) *onceProject {
	dir := t.TempDir()
	fifo, trace := filepath.Join(dir, "go"), filepath.Join(dir, "runs")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("cat %q >/dev/null; echo ran >> %q; echo 'Tests: once'", fifo, trace)
	p := newProject(t, fmt.Sprintf("[roles.be]\nworker = [\"sh\", \"-c\", %q]\n", script), 50*time.Millisecond)
	return &onceProject{project: p, fifo: fifo, trace: trace}
}

// startLead starts a Lead of role be as a process of its own.
func (p *onceProject) startLead() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "lead", p.dir, "be")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// finishWorkerUnposted lets the running Worker of id finish while the
// outbox is locked for writing, so that its Lead holds the result and
// cannot post it; it returns once the result is recorded, and the
// returned func unlocks the outbox.
func (p *onceProject) finishWorkerUnposted(id int64) (unlock func()) {
	t := p.t
	p.waitFor("the Worker running", 20*time.Second, func() bool { return p.issue(id).HasLabel(roster.LabelRunning) })
	db, err := sql.Open("sqlite", "file:"+p.wf.DBPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	// Opening the FIFO waits for the Worker, which reads it.
	if err := os.WriteFile(p.fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := roster.AttemptDir(roster.StatusDir(p.wf), "be", id, 1)
	p.waitFor("the result recorded", 20*time.Second, func() bool {
		r, err := readAttemptResult(dir)
		return err == nil && r.Evidence[outbox.FieldTests] == "once"
	})
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

func (p *onceProject) runs() int {
	data, err := os.ReadFile(p.trace)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		p.t.Fatal(err)
	}
	return strings.Count(string(data), "ran\n")
}

// A Worker that finished just before its Lead was SIGKILLed, its result
// recorded but not posted, is not run again: the next Lead posts that
// result.
func TestWorkerFinishedBeforeLeadKillIsNotRunAgain(t *testing.T) {
	p := newOnceProject(t)
	lead := p.startLead()
	id := p.file("once", "", "to:be")
	unlock := p.finishWorkerUnposted(id)
	lead.Process.Signal(syscall.SIGKILL)
	lead.Wait()
	unlock()
	if p.issue(id).Closed {
		t.Fatal("the killed Lead posted the result: the test did not strike between the Worker's end and its post")
	}

	p.startLead()
	p.waitFor("the issue closed", 30*time.Second, func() bool { return p.issue(id).Closed })
	if n := p.runs(); n != 1 {
		t.Errorf("the Worker ran %d times", n)
	}
	if atts, _ := roster.Attempts(roster.StatusDir(p.wf), "be", id); len(atts) != 1 {
		t.Errorf("attempts %v, want [1]", atts)
	}
	f := fieldsOf(p.comments(id), roster.Actor("be"))
	if last := f[len(f)-1]; last[outbox.FieldTests] != "once" || last[outbox.FieldState] != roster.LabelDone {
		t.Errorf("posted %v", last)
	}
	if !hasText(p.comments(id), "read back from its result record") {
		t.Errorf("the post does not say it was read back: %v", p.comments(id))
	}
}

// A Lead told to stop (SIGTERM) posts the results of the Workers that
// had finished before it exits.
func TestLeadSIGTERMKeepsFinishedResults(t *testing.T) {
	p := newOnceProject(t)
	lead := p.startLead()
	id := p.file("once", "", "to:be")
	unlock := p.finishWorkerUnposted(id)
	lead.Process.Signal(syscall.SIGTERM)
	unlock()
	if err := lead.Wait(); err != nil {
		t.Fatalf("the Lead ended with %v", err)
	}
	if !p.issue(id).Closed {
		t.Fatal("the Lead stopped without posting its finished Worker's result")
	}
	if n := p.runs(); n != 1 {
		t.Errorf("the Worker ran %d times", n)
	}
	f := fieldsOf(p.comments(id), roster.Actor("be"))
	if last := f[len(f)-1]; last[outbox.FieldTests] != "once" || last[outbox.FieldState] != roster.LabelDone {
		t.Errorf("posted %v", last)
	}
}
