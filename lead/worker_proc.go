package lead

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// workerRun is one running attempt of a Worker: a process of daokit's
// one runtime (worker.Start, as a controller step's), which writes its
// stdout and stderr into the attempt's logs itself.
type workerRun struct {
	issue   int64
	attempt int
	// proc is its Worker's process (*worker.Process), or its role's
	// loop (*loopProc).
	proc    attemptProc
	dir     string // the attempt's folder (logs, result)
	tree    string // its worktree's top ("": the role's folder)
	workDir string
	started time.Time
	// blocked: stopped because its issue was blocked (no evidence).
	blocked bool
	// health is its heartbeat (healthActive, roster.HealthWarning, roster.HealthStale);
	// hung: stopped as STALE, to be started again.
	health string
	hung   bool
}

// workerResult is what a Worker attempt left: its exit, why daokit
// stopped it (if it did), and the mailbox fields it printed (IssueRef,
// Changes, Tests, BlockedBy, Breaking).
type workerResult struct {
	issue    int64
	attempt  int
	exit     int
	signal   string
	stopped  transcript.StopCause
	err      error
	evidence map[string]string
	// invalid are the fields it printed that break the mailbox
	// contract: not taken, said in the Lead's comment.
	invalid map[string]outbox.InvalidField
	session string
	usage   *usageInfo
	// fromRecord: read back from the attempt's result.json by a Lead
	// that took over from one that died before posting it.
	fromRecord bool
	// hung: err says the Worker was stopped as STALE too often.
	hung bool
	// tree is the issue's worktree ("" none); commit the commit of what
	// the Worker left uncommitted there.
	tree, commit string
	// loopNote says how a role's loop went (roles with workflow =
	// "loop"), for the comment that posts its result.
	loopNote string
}

// Placeholders of a role's worker command line.
const (
	PlaceholderIssue = "{issue}"
	placeholderRole  = "{role}"
	placeholderRepo  = "{repo}"
	// placeholderSession is the session of the issue's earlier attempt,
	// in a role's resume command line.
	placeholderSession = "{session}"
)

// workerStopGrace is the time between SIGTERM and SIGKILL when a Lead
// stops a Worker: short, so that a Lead told to stop ends within the
// controller's grace.
const workerStopGrace = 2 * time.Second

// workerArgv is the role's Worker command line for is, {repo} being the
// folder the Worker works in (its worktree when it has one); with a
// session of an earlier attempt and a resume command line, that one.
func (l *Lead) workerArgv(is outbox.Issue, dir, session string) []string {
	argv := l.role.Worker
	if len(argv) == 0 {
		argv = l.o.WorkerArgv
	}
	if session != "" && len(l.role.Resume) > 0 {
		argv = l.role.Resume
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, PlaceholderIssue, strconv.FormatInt(is.ID, 10))
		a = strings.ReplaceAll(a, placeholderRole, l.o.Role)
		a = strings.ReplaceAll(a, placeholderSession, session)
		out[i] = strings.ReplaceAll(a, placeholderRepo, dir)
	}
	return append(append([]string(nil), l.o.Guard...), out...)
}

// workerEnv is the Lead's environment without daokit's own settings and
// the outbox credentials (isSecretEnv), plus outbox.WorkerEnv, which
// makes the outbox read-only for the Worker and anything it starts.
func (l *Lead) workerEnv(is outbox.Issue) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DAOKIT_") && !strings.HasPrefix(kv, "DAOKIT_LANG=") || isSecretEnv(kv) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, outbox.WorkerEnv+"="+l.o.Role, "DAOKIT_ISSUE="+strconv.FormatInt(is.ID, 10))
}

// startWorker runs a Worker for is in its worktree with its brief on
// stdin (the issue's title and body, and the digest of the accepted
// decisions given to the role); its result arrives through l.results.
func (l *Lead) startWorker(ctx context.Context, is outbox.Issue) error {
	ds, err := l.refreshMemory(ctx)
	if err != nil {
		return err
	}
	if l.role.Loop != nil {
		return l.startLoop(ctx, is, brief(is, digest(ds, l.o.Role)))
	}
	return l.spawnWorker(ctx, is, brief(is, digest(ds, l.o.Role)))
}

// nextAttempt is the number of issue's next attempt: one past the last
// kept, so that a Lead that took over never writes into an attempt of
// its predecessor's.
func (l *Lead) nextAttempt(issue int64) (int, error) {
	atts, err := roster.Attempts(l.logRoot, l.o.Role, issue)
	if err != nil {
		return 0, err
	}
	n := 1
	if len(atts) > 0 {
		n = atts[len(atts)-1] + 1
	}
	return n, nil
}

func (l *Lead) spawnWorker(ctx context.Context, is outbox.Issue, brief string) error {
	dir, tree, err := l.workDir(ctx, is.ID)
	if err != nil {
		return fmt.Errorf("worktree for #%d: %w", is.ID, err)
	}
	attempt, err := l.nextAttempt(is.ID)
	if err != nil {
		return err
	}
	session := ""
	if len(l.role.Resume) > 0 {
		session = l.lastSession(is.ID, attempt)
	}
	argv := l.workerArgv(is, dir, session)
	if len(argv) == 0 {
		return fmt.Errorf("no worker command for role %s", l.o.Role)
	}
	var extra []string
	if tree != "" {
		extra = append(extra, worker.EnvWorktree+"="+tree)
	}
	spec := worker.Spec{
		Argv: argv, Dir: dir, BaseEnv: l.workerEnv(is), Env: extra,
		Stdin: brief, UseStdin: true, Kind: l.kind(),
		ArtifactDir: roster.AttemptDir(l.logRoot, l.o.Role, is.ID, attempt), ArtifactRoot: l.logRoot,
		LogLimit: worker.DefaultLogLimit, StopGrace: workerStopGrace,
		SysProcAttr: workerSysProcAttr(len(l.o.Guard) > 0),
	}
	// The exit status dies with the Lead: it is recorded the moment the
	// Worker is reaped, not once its output is read (the Worker's own
	// output is in its logs already), so that a Lead killed just after
	// its Worker finished leaves that Worker's result to the next Lead.
	spec.OnExit = func(e worker.Exit) {
		if e.Stopped != transcript.StopNone {
			return
		}
		rec := attemptResult{Role: l.o.Role, Issue: is.ID, Attempt: attempt, PID: e.PID, ExitCode: e.ExitCode, Time: now()}
		if e.Signal != 0 {
			rec.Signal = worker.Result{Signal: e.Signal}.SignalName()
		}
		if err := writeAttemptResult(spec.ArtifactDir, rec, false); err != nil {
			fmt.Fprintf(os.Stderr, "lead %s: record the exit of #%d attempt %d: %v\n", l.o.Role, is.ID, attempt, err)
		}
	}
	if err := ensureDir(l.logRoot); err != nil {
		return err
	}
	p, err := worker.Start(context.Background(), spec)
	if err != nil {
		// A guarded Worker that cannot start is refused, never run
		// unguarded (see GuardUnavailableError).
		return guardStartError(len(l.o.Guard) > 0, err)
	}
	// The Lead reads the Worker's output from its logs once it is gone
	// (see collect); the heartbeat needs only its last activity.
	p.Discard()
	w := &workerRun{issue: is.ID, attempt: attempt, proc: p, dir: spec.ArtifactDir, tree: tree, workDir: dir,
		started: p.StartedAt(), health: healthActive}
	l.mu.Lock()
	l.running[is.ID] = w
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.collect(w, p, spec)
	}()
	return nil
}

// collect waits for w's end, reads its evidence back from its stdout
// log and, when it exited on its own, records the result in the
// attempt's folder before anything is posted: a Lead killed from here on
// leaves it for the next Lead (recoverResult), and the Worker is not run
// again. The result is then handed to the Lead's loop.
func (l *Lead) collect(w *workerRun, p *worker.Process, spec worker.Spec) {
	res := p.Wait()
	out := workerResult{issue: w.issue, attempt: w.attempt, exit: res.ExitCode, signal: res.SignalName(), stopped: res.Stopped, tree: w.tree}
	m, summary, err := readEvidence(spec)
	ev := m.Fields
	out.evidence, out.invalid, out.session, out.usage = ev, m.Invalid, summary.SessionID, usageOf(summary)
	if err == nil && res.Stopped == transcript.StopNone {
		out.commit = l.commitWork(w.issue, w.attempt, w.tree)
		// Now with what it printed, and on disk for good before it is
		// posted.
		rec := attemptResult{Role: l.o.Role, Issue: w.issue, Attempt: w.attempt, PID: res.PID, ExitCode: res.ExitCode,
			Signal: out.signal, Evidence: ev, Invalid: m.Invalid, SessionID: out.session, Usage: out.usage, Commit: out.commit,
			StdoutBytes: res.Stats.StdoutLogBytes, StderrBytes: res.Stats.StderrLogBytes, Time: now()}
		if werr := writeAttemptResult(spec.ArtifactDir, rec, true); werr != nil {
			fmt.Fprintf(os.Stderr, "lead %s: record the result of #%d attempt %d: %v\n", l.o.Role, w.issue, w.attempt, werr)
		}
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "lead %s: read the logs of #%d attempt %d: %v\n", l.o.Role, w.issue, w.attempt, err)
	}
	l.deliver(out)
	_ = p.LogsDurable()
}

// deliver hands a result to the Lead's loop without ever blocking: a
// Lead that is stopping still finds it (see Run's end).
func (l *Lead) deliver(res workerResult) {
	l.mu.Lock()
	l.results = append(l.results, res)
	l.mu.Unlock()
	select {
	case l.resultCh <- struct{}{}:
	default:
	}
}

// takeResults empties the results waiting for the loop.
func (l *Lead) takeResults() []workerResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.results
	l.results = nil
	return out
}

// kind is the transcript decoder of the role's Workers: an agent CLI's
// session and usage are read from its output.
func (l *Lead) kind() string {
	if l.role.Kind != "" {
		return l.role.Kind
	}
	return "command"
}

// readEvidence reads the mailbox fields a Worker printed back from its
// stdout log (one per line, the last value of a field winning; an agent
// CLI's fields may also be in its result's text), with what its output
// said of its session and usage. A value that breaks the contract is not
// taken (in Invalid, unless a valid value of that field was printed).
func readEvidence(spec worker.Spec) (outbox.Mailbox, worker.Summary, error) {
	ev := map[string]string{}
	var invalid map[string]outbox.InvalidField
	take := func(text string) {
		for _, line := range strings.Split(text, "\n") {
			m := outbox.ParseMailbox(line)
			for k, v := range m.Fields {
				ev[k] = v
			}
			for k, f := range m.Invalid {
				if invalid == nil {
					invalid = map[string]outbox.InvalidField{}
				}
				invalid[k] = f
			}
		}
	}
	rep, err := worker.Replay(spec, worker.LogOffsets{}, func(rec transcript.Record) {
		if rec.Stream != transcript.Stdout {
			return
		}
		take(rec.Text)
		for _, e := range rec.Events {
			if e.Type == transcript.EventResult {
				take(e.Text)
			}
		}
	})
	for k := range invalid {
		if _, taken := ev[k]; taken {
			delete(invalid, k)
		}
	}
	if len(invalid) == 0 {
		invalid = nil
	}
	return outbox.Mailbox{Fields: ev, Invalid: invalid}, rep.Summary, err
}

// usageOf is what the Worker's result said its work cost, if it said.
func usageOf(s worker.Summary) *usageInfo {
	if s.Result == nil || s.Result.Usage == nil {
		return nil
	}
	u := s.Result.Usage
	return &usageInfo{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD}
}

// workerState reads the State a Worker printed as its result line
// ("State: done" or "State: failed", state:done and state:failed too):
// said reports that it printed one.
func workerState(ev map[string]string) (done, said bool) {
	switch strings.TrimPrefix(strings.TrimSpace(ev[outbox.FieldState]), "state:") {
	case "done":
		return true, true
	case "failed":
		return false, true
	}
	return false, false
}

// succeeded: the Worker's result line says done, or, without one, it
// exited 0.
func succeeded(res workerResult) bool {
	if done, said := workerState(res.evidence); said {
		return done
	}
	return res.exit == 0
}

// resultFromLog reads an attempt whose exit nobody recorded back from its
// logs: finished only when its result line is there (an agent CLI's
// result event, or the State line a command Worker prints last), which
// then stands for the exit status that died with its Lead. ok is false
// for a Worker that never got that far: it runs again.
func resultFromLog(spec worker.Spec, issue int64, attempt int) (workerResult, bool) {
	m, summary, err := readEvidence(spec)
	if err != nil {
		return workerResult{}, false
	}
	ev := m.Fields
	res := workerResult{issue: issue, attempt: attempt, evidence: ev, invalid: m.Invalid, session: summary.SessionID, usage: usageOf(summary), fromRecord: true}
	if done, said := workerState(ev); said {
		if !done {
			res.exit = 1
		}
		return res, true
	}
	if r := summary.Result; r != nil && (spec.Kind == "claude" || spec.Kind == "codex") {
		if r.Failed {
			res.exit = 1
		}
		return res, true
	}
	return workerResult{}, false
}

// lastSession is the session the newest attempt before attempt on issue
// reported (its result record, else its log), "" when none did: the
// next attempt of a role with a resume command goes on with it, in the
// same worktree.
func (l *Lead) lastSession(issue int64, attempt int) string {
	atts, err := roster.Attempts(l.logRoot, l.o.Role, issue)
	if err != nil {
		return ""
	}
	for i := len(atts) - 1; i >= 0; i-- {
		if atts[i] >= attempt {
			continue
		}
		dir := roster.AttemptDir(l.logRoot, l.o.Role, issue, atts[i])
		if rec, err := readAttemptResult(dir); err == nil && rec.SessionID != "" {
			return rec.SessionID
		}
		if _, summary, err := readEvidence(worker.Spec{Kind: l.kind(), ArtifactDir: dir, ArtifactRoot: l.logRoot}); err == nil && summary.SessionID != "" {
			return summary.SessionID
		}
	}
	return ""
}

// commitWork commits what a Worker that exited on its own left
// uncommitted in its worktree onto the issue's branch, so that its work
// is on the branch whatever becomes of the folder (the next attempt on
// the issue goes on from it); "" when there was nothing, no worktree, or
// git failed (the work then stays in the folder, as it was).
func (l *Lead) commitWork(issue int64, attempt int, tree string) string {
	if tree == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	msg := fmt.Sprintf("%s #%d (attempt %d): the work its Worker left", l.o.Role, issue, attempt)
	l.gitMu.Lock()
	commit, err := gitwork.CommitWork(ctx, tree, msg, gitwork.Author{})
	l.gitMu.Unlock()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lead %s: commit the work of #%d attempt %d: %v\n", l.o.Role, issue, attempt, err)
		return ""
	}
	return commit
}

// commitTimeout bounds the commit of a Worker's work.
const commitTimeout = time.Minute

// issueTree is issue's worktree when it has one (for a result read back
// by a Lead that did not start its Worker).
func (l *Lead) issueTree(issue int64) string {
	p := filepath.Join(roster.WorktreesDir(l.o.Workflow.Dir, l.o.Role), strconv.FormatInt(issue, 10))
	if _, err := os.Stat(filepath.Join(p, ".git")); err != nil {
		return ""
	}
	return p
}
