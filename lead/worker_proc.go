package lead

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/outbox"
)

// workerRun is one running Worker process.
type workerRun struct {
	issue   int64
	cmd     *exec.Cmd
	tree    *proc.Tree
	started time.Time
	// blocked: stopped because its issue was blocked (no evidence).
	blocked  bool
	stopOnce sync.Once
}

// stop kills the Worker's whole tree (a tool it ran in a session of
// its own too).
func (w *workerRun) stop() {
	w.stopOnce.Do(w.tree.Kill)
}

// workerResult is what a Worker left: its exit and the mailbox fields it
// printed (IssueRef, Changes, Tests, BlockedBy, Breaking).
type workerResult struct {
	issue    int64
	exit     int
	err      error
	evidence map[string]string
}

// Placeholders of a role's worker command line.
const (
	PlaceholderIssue = "{issue}"
	PlaceholderRole  = "{role}"
	PlaceholderRepo  = "{repo}"
)

func (l *Lead) workerArgv(is outbox.Issue) []string {
	argv := l.role.Worker
	if len(argv) == 0 {
		argv = l.o.WorkerArgv
	}
	repo := l.o.Workflow.RepoDir(l.o.Role)
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, PlaceholderIssue, strconv.FormatInt(is.ID, 10))
		a = strings.ReplaceAll(a, PlaceholderRole, l.o.Role)
		out[i] = strings.ReplaceAll(a, PlaceholderRepo, repo)
	}
	return append(append([]string(nil), l.o.Guard...), out...)
}

// workerEnv is the Lead's environment without daokit's own settings,
// plus outbox.WorkerEnv, which makes the outbox read-only for the Worker
// and anything it starts.
func (l *Lead) workerEnv(is outbox.Issue) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DAOKIT_") && !strings.HasPrefix(kv, "DAOKIT_LANG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, outbox.WorkerEnv+"="+l.o.Role, "DAOKIT_ISSUE="+strconv.FormatInt(is.ID, 10))
}

// startWorker runs a Worker for is in the role's repo with its brief on
// stdin (the issue's title and body, and the digest of the accepted
// decisions given to the role); its result arrives on l.done.
func (l *Lead) startWorker(ctx context.Context, is outbox.Issue) error {
	ds, err := l.refreshMemory(ctx)
	if err != nil {
		return err
	}
	return l.spawnWorker(is, Brief(is, Digest(ds, l.o.Role)))
}

func (l *Lead) spawnWorker(is outbox.Issue, brief string) error {
	argv := l.workerArgv(is)
	if len(argv) == 0 {
		return fmt.Errorf("no worker command for role %s", l.o.Role)
	}
	repo := l.o.Workflow.RepoDir(l.o.Role)
	if err := ensureDir(repo); err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = repo
	cmd.Env = l.workerEnv(is)
	cmd.Stdin = strings.NewReader(brief)
	cmd.Stderr = io.Discard
	cmd.SysProcAttr = workerSysProcAttr(len(l.o.Guard) > 0)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	tree, err := proc.Start(context.Background(), cmd)
	if err != nil {
		// A guarded Worker that cannot start is refused, never run
		// unguarded (see GuardUnavailableError).
		return guardStartError(len(l.o.Guard) > 0, err)
	}
	w := &workerRun{issue: is.ID, cmd: cmd, tree: tree, started: time.Now()}
	l.mu.Lock()
	l.running[is.ID] = w
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		// Once the Worker exits (not reaped yet: the group id is still
		// its own), nothing it left behind outlives it, nor holds its
		// output open.
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			if proc.WaitExited(tree.PID()) == nil {
				w.stop()
			}
		}()
		ev := readEvidence(out)
		<-exited
		err := cmd.Wait()
		tree.Release()
		res := workerResult{issue: is.ID, evidence: ev}
		if cmd.ProcessState != nil {
			res.exit = cmd.ProcessState.ExitCode()
		} else if err != nil {
			res.err = err
		}
		l.done <- res
	}()
	return nil
}

// readEvidence collects the mailbox fields a Worker prints, one per
// line; the last value of a field wins.
func readEvidence(r io.Reader) map[string]string {
	ev := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := outbox.ParseMailbox(sc.Text())
		for k, v := range m.Fields {
			ev[k] = v
		}
	}
	_, _ = io.Copy(io.Discard, r)
	return ev
}
