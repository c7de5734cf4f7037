package lead

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/daokit/daokit/workflow"
)

// A role whose workflow is "loop" works an issue with the workflow
// package's Loop (the engine daokit.toml's loop runs on): its coder lane,
// then its reviewer lane, until its judge says done. The loop is one
// attempt of the issue (roster.AttemptDir); each of its steps is a Worker
// of the Lead's runtime (guarded, in the issue's worktree, its logs in
// <attempt>/<step id>/, its heartbeat the attempt's), and each finished
// step is recorded there (step.json) before the loop goes on. A Lead
// that took over goes on with the same attempt: the loop recalls the
// steps that finished (or whose exit was recorded, or whose logs hold
// their result) and runs none of them again.

// stepRecordFile is a finished loop step's record, in its folder.
const stepRecordFile = "step.json"

// Environment of a loop step: which iteration it is in (as a controller
// loop step's, which the simulated agent reads), and its step id and role.
const (
	envIteration = "DAOKIT_ITERATION"
	envLoopStep  = "DAOKIT_LOOP_STEP"
	envLoopRole  = "DAOKIT_LOOP_ROLE"
)

// PlaceholderLaneRole is the loop role (coder, reviewer, judge) in
// Options.SimAgentArgv.
const PlaceholderLaneRole = "{lane_role}"

// attemptProc is a running attempt as the Lead's bookkeeping sees it: a
// Worker's process, or a loop of them (loopProc).
type attemptProc interface {
	PID() int
	LastActivity() time.Time
	Stop(cause transcript.StopCause)
	Cancel()
}

// loopProc is a running loop: the step that runs now (none between
// steps and while a built-in judge decides), and why the Lead stopped
// it. Stopping it stops its step and ends the loop without a result.
type loopProc struct {
	mu       sync.Mutex
	cur      *worker.Process
	cause    transcript.StopCause
	cancel   context.CancelFunc
	activity time.Time
}

// PID is the running step's process, 0 between steps.
func (p *loopProc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return 0
	}
	return p.cur.PID()
}

// LastActivity is the running step's last output, or the last step's
// start or end: the loop's silence is its running step's.
func (p *loopProc) LastActivity() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.activity
	if p.cur != nil {
		t = later(t, p.cur.LastActivity())
	}
	return t
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Stop ends the loop: its step is stopped with cause and no further
// step starts.
func (p *loopProc) Stop(cause transcript.StopCause) {
	p.mu.Lock()
	if p.cause == transcript.StopNone {
		p.cause = cause
	}
	cur := p.cur
	p.mu.Unlock()
	p.cancel()
	if cur != nil {
		cur.Stop(cause)
	}
}

// Cancel stops the loop as cancelled (its issue was blocked).
func (p *loopProc) Cancel() { p.Stop(transcript.StopCancelled) }

// begin makes cur the running step, unless the loop was stopped (it is
// then stopped too, and begin reports false).
func (p *loopProc) begin(cur *worker.Process) bool {
	p.mu.Lock()
	cause := p.cause
	if cause == transcript.StopNone {
		p.cur, p.activity = cur, time.Now()
	}
	p.mu.Unlock()
	if cause != transcript.StopNone {
		cur.Stop(cause)
		return false
	}
	return true
}

func (p *loopProc) end() {
	p.mu.Lock()
	p.cur, p.activity = nil, time.Now()
	p.mu.Unlock()
}

func (p *loopProc) stopped() transcript.StopCause {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cause
}

// loopRun is one loop attempt on an issue.
type loopRun struct {
	w     *workerRun
	p     *loopProc
	issue outbox.Issue
}

// errStepStopped ends a step the Lead stopped (blocked, hung, the Lead's
// end): the loop ends without a result.
var errStepStopped = errors.New("the step was stopped")

// loopAttempt is the attempt a loop on issue runs as: the last one when
// its loop had started and left no result (a Lead that took over, or a
// restart after a hung step, goes on with it), else the next.
func (l *Lead) loopAttempt(issue int64) (int, error) {
	atts, err := roster.Attempts(l.logRoot, l.o.Role, issue)
	if err != nil {
		return 0, err
	}
	if len(atts) > 0 {
		last := atts[len(atts)-1]
		dir := roster.AttemptDir(l.logRoot, l.o.Role, issue, last)
		if _, err := os.Stat(filepath.Join(dir, roster.AttemptResultFile)); errors.Is(err, os.ErrNotExist) {
			return last, nil
		}
	}
	return l.nextAttempt(issue)
}

// startLoop starts the role's loop on is in its worktree, its result
// arriving through l.results as a Worker's does.
func (l *Lead) startLoop(ctx context.Context, is outbox.Issue, brief string) error {
	dir, tree, err := l.workDir(ctx, is.ID)
	if err != nil {
		return fmt.Errorf("worktree for #%d: %w", is.ID, err)
	}
	attempt, err := l.loopAttempt(is.ID)
	if err != nil {
		return err
	}
	adir := roster.AttemptDir(l.logRoot, l.o.Role, is.ID, attempt)
	if err := ensureDir(adir); err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	p := &loopProc{cancel: cancel, activity: time.Now()}
	w := &workerRun{issue: is.ID, attempt: attempt, proc: p, dir: adir, tree: tree, workDir: dir, started: time.Now(), health: healthActive}
	l.mu.Lock()
	l.running[is.ID] = w
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer cancel()
		l.deliver(l.runLoop(lctx, &loopRun{w: w, p: p, issue: is}, brief))
	}()
	return nil
}

// runLoop runs the loop to its end and, unless the Lead stopped it,
// records its result in the attempt's result.json before the result is
// posted (a Lead killed from then on leaves it to the next, which posts
// it: recoverResult).
func (l *Lead) runLoop(ctx context.Context, r *loopRun, brief string) workerResult {
	lc := l.role.Loop
	w := r.w
	out := workerResult{issue: w.issue, attempt: w.attempt, tree: w.tree}
	agent := func(lane string, role workflow.Role) *laneAgent {
		return &laneAgent{l: l, r: r, lane: lc.Lanes[lane], role: role}
	}
	var judge workflow.Judge
	switch lc.Judge {
	case config.JudgeCommand:
		judge = &commandJudge{l: l, r: r, argv: lc.JudgeCommand}
	case config.JudgeAgent:
		judge = workflow.AgentJudge{Agent: agent(lc.JudgeLane, workflow.RoleJudge)}
	default:
		judge = workflow.ReviewerApproved{}
	}
	loop := workflow.NewLoop(workflow.SinglePass(agent(lc.Coder, workflow.RoleCoder), agent(lc.Reviewer, workflow.RoleReviewer)), judge, lc.MaxIterations)
	res, err := loop.Run(ctx, workflow.Task{Text: brief, Memory: &stepMemory{l: l, dir: w.dir}})
	if cause := r.p.stopped(); cause != transcript.StopNone {
		out.stopped = cause
		return out
	}
	ev, note, usage := l.loopEvidence(w, res, err)
	out.evidence, out.loopNote, out.usage = ev, note, usage
	if _, ok := workerState(ev); !ok || ev[outbox.FieldState] != "done" {
		out.exit = 1
	}
	out.commit = l.commitWork(w.issue, w.attempt, w.tree)
	rec := attemptResult{Role: l.o.Role, Issue: w.issue, Attempt: w.attempt, ExitCode: out.exit, Evidence: ev, Usage: usage,
		Commit: out.commit, Loop: note, Time: now()}
	if werr := writeAttemptResult(w.dir, rec, true); werr != nil {
		fmt.Fprintf(os.Stderr, "lead %s: record the result of #%d attempt %d: %v\n", l.o.Role, w.issue, w.attempt, werr)
	}
	return out
}

// loopEvidence turns the loop's end into the mailbox fields of the
// Lead's result: Changes are the last coder's with the reviewer's
// verdict, Tests the last coder's with the judge's decision, State done
// only when the judge said done. note says how the loop went, for the
// comment's text. usage adds up what the agents reported.
func (l *Lead) loopEvidence(w *workerRun, res workflow.Result, err error) (map[string]string, string, *usageInfo) {
	coder := map[string]string{}
	var usage *usageInfo
	for n := 1; n <= max(res.Iterations, 1); n++ {
		for _, role := range []workflow.Role{workflow.RoleCoder, workflow.RoleReviewer, workflow.RoleJudge} {
			id := workflow.StepID(n, string(role))
			m, summary, rerr := readEvidence(l.stepSpec(w, id, l.stepKind(id)))
			if rerr != nil {
				continue
			}
			if u := usageOf(summary); u != nil {
				if usage == nil {
					usage = &usageInfo{}
				}
				usage.InputTokens += u.InputTokens
				usage.OutputTokens += u.OutputTokens
				usage.CostUSD += u.CostUSD
			}
			if role == workflow.RoleCoder {
				for k, v := range m.Fields {
					coder[k] = v
				}
			}
		}
	}
	ev := map[string]string{outbox.FieldIssueRef: fmt.Sprintf("#%d", w.issue)}
	for _, k := range []string{outbox.FieldBlockedBy, outbox.FieldBreaking} {
		if v := coder[k]; v != "" {
			ev[k] = v
		}
	}
	it := fmt.Sprintf("iteration %d/%d", res.Iterations, max(l.role.Loop.MaxIterations, 1))
	review := "no review"
	if v := res.Verdict; v != nil {
		review = fmt.Sprintf("review (%s): %s", it, v.Decision)
		if v.Reason != "" {
			review += " — " + fieldLine(v.Reason, 300)
		}
	}
	judged := "no judge decision"
	if d := res.Decision; d != nil {
		judged = fmt.Sprintf("judge %s (%s): %s", l.role.Loop.Judge, it, d.Code)
		if d.Reason != "" {
			judged += " — " + fieldLine(d.Reason, 300)
		}
	}
	ev[outbox.FieldChanges] = joinNA(coder[outbox.FieldChanges], review)
	ev[outbox.FieldTests] = joinNA(coder[outbox.FieldTests], judged)
	var note string
	switch {
	case err != nil:
		ev[outbox.FieldState] = "failed"
		note = "The loop stopped: " + fieldLine(err.Error(), 500) + "."
	case res.Blocked:
		ev[outbox.FieldState] = "failed"
		note = fmt.Sprintf("The loop ended without done: %s (%s).", res.Code, fieldLine(res.Reason, 300))
	default:
		ev[outbox.FieldState] = "done"
		note = fmt.Sprintf("The loop (%s → %s, judge %s) ended done after %s.", l.role.Loop.Coder, l.role.Loop.Reviewer, l.role.Loop.Judge, it)
	}
	if last := roster.LatestLoopStep(w.dir); last != "" {
		note += fmt.Sprintf(" Its steps' logs: daokit logs --role %s --issue %d --attempt %d --step-id %s", l.o.Role, w.issue, w.attempt, last)
	}
	return ev, note, usage
}

// joinNA joins a coder's field and the loop's word on it.
func joinNA(coder, loop string) string {
	if strings.TrimSpace(coder) == "" || coder == "n/a" {
		return loop
	}
	return coder + "; " + loop
}

// fieldLine makes s one line of at most n bytes: a mailbox field's
// value is one line (outbox/mailbox.schema.json).
func fieldLine(s string, n int) string { return clip(oneLine(s), n) }

// stepKind is how the log of loop step id ("I2-reviewer") is read: as
// the kind of the lane that does its part (an agent CLI's stream
// carries its usage); a judge command's as plain lines.
func (l *Lead) stepKind(id string) string {
	lc := l.role.Loop
	lane := ""
	switch {
	case strings.HasSuffix(id, "-"+string(workflow.RoleCoder)):
		lane = lc.Coder
	case strings.HasSuffix(id, "-"+string(workflow.RoleReviewer)):
		lane = lc.Reviewer
	case lc.Judge == config.JudgeAgent:
		lane = lc.JudgeLane
	}
	return lc.Lanes[lane].Kind
}

// stepSpec is the runtime's Spec of a loop step's Worker (argv empty
// when only its logs are read back).
func (l *Lead) stepSpec(w *workerRun, stepID, kind string) worker.Spec {
	if kind == "" {
		kind = "command"
	}
	return worker.Spec{Kind: kind, ArtifactDir: filepath.Join(w.dir, stepID), ArtifactRoot: l.logRoot}
}

// runStep runs one step of r's loop as a Worker: guarded, in the issue's
// worktree, instruction on stdin, logs in the step's folder. Its exit is
// recorded there the moment it is reaped (a Lead killed just after reads
// it back, see stepMemory). A step the Lead stopped ends errStepStopped.
func (l *Lead) runStep(r *loopRun, stepID string, role workflow.Role, iteration int, argv []string, kind, stdin string) (worker.Result, worker.Spec, error) {
	w := r.w
	spec := l.stepSpec(w, stepID, kind)
	spec.Argv = append(append([]string(nil), l.o.Guard...), l.expand(argv, r.issue, w.workDir, string(role))...)
	spec.Dir, spec.BaseEnv = w.workDir, l.workerEnv(r.issue)
	spec.Env = []string{envIteration + "=" + strconv.Itoa(iteration), envLoopStep + "=" + stepID, envLoopRole + "=" + string(role)}
	if w.tree != "" {
		spec.Env = append(spec.Env, worker.EnvWorktree+"="+w.tree)
	}
	spec.Stdin, spec.UseStdin = stdin, true
	spec.LogLimit, spec.StopGrace = worker.DefaultLogLimit, workerStopGrace
	spec.SysProcAttr = workerSysProcAttr(len(l.o.Guard) > 0)
	spec.OnExit = func(e worker.Exit) {
		if e.Stopped != transcript.StopNone {
			return
		}
		rec := attemptResult{Role: l.o.Role, Issue: w.issue, Attempt: w.attempt, PID: e.PID, ExitCode: e.ExitCode, Time: now()}
		if err := writeAttemptResult(spec.ArtifactDir, rec, false); err != nil {
			fmt.Fprintf(os.Stderr, "lead %s: record the exit of #%d step %s: %v\n", l.o.Role, w.issue, stepID, err)
		}
	}
	if r.p.stopped() != transcript.StopNone {
		return worker.Result{}, spec, errStepStopped
	}
	p, err := worker.Start(context.Background(), spec)
	if err != nil {
		return worker.Result{}, spec, guardStartError(len(l.o.Guard) > 0, err)
	}
	p.Discard()
	started := r.p.begin(p)
	res := p.Wait()
	r.p.end()
	_ = p.LogsDurable()
	if !started || res.Stopped != transcript.StopNone {
		return res, spec, errStepStopped
	}
	return res, spec, nil
}

// expand fills a lane's command line as the role worker's is filled;
// an empty one is the simulated agent in the loop role.
func (l *Lead) expand(argv []string, is outbox.Issue, dir, role string) []string {
	if len(argv) == 0 {
		argv = l.o.SimAgentArgv
		if role == string(workflow.RoleJudge) {
			// The simulated agent judges by its verdict, as a reviewer.
			role = string(workflow.RoleReviewer)
		}
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, PlaceholderIssue, strconv.FormatInt(is.ID, 10))
		a = strings.ReplaceAll(a, placeholderRole, l.o.Role)
		a = strings.ReplaceAll(a, PlaceholderLaneRole, role)
		out[i] = strings.ReplaceAll(a, placeholderRepo, dir)
	}
	return out
}

// laneAgent is a lane of a role's loop as the workflow package sees an
// agent: each run a Worker of the Lead's runtime (runStep).
type laneAgent struct {
	l    *Lead
	r    *loopRun
	lane team.Lane
	role workflow.Role
}

// Name is the lane's part, as a controller loop's step is named: the
// step ids are "I<n>-coder", "I<n>-reviewer" (and "I<n>-judge" for an
// agent judge), whichever lanes do them.
func (a *laneAgent) Name() string { return string(a.role) }

// Role is the lane's part in the loop.
func (a *laneAgent) Role() workflow.Role { return a.role }

// Run runs the lane's Worker on the step's instruction; it fails when
// the Worker exits non-zero or was stopped.
func (a *laneAgent) Run(_ context.Context, inv workflow.Invocation) (workflow.Output, error) {
	res, spec, err := a.l.runStep(a.r, inv.StepID, inv.Role, inv.Iteration, a.lane.Worker, a.kind(), inv.Instruction)
	if err != nil {
		return workflow.Output{}, err
	}
	out, rerr := stepOutput(spec)
	if rerr != nil {
		return out, fmt.Errorf("read the logs of %s: %w", inv.StepID, rerr)
	}
	if res.ExitCode != 0 || res.Signal != 0 {
		return out, fmt.Errorf("its Worker exited %d%s", res.ExitCode, signalSuffix(res))
	}
	return out, nil
}

func signalSuffix(res worker.Result) string {
	if res.Signal == 0 {
		return ""
	}
	return " (" + res.SignalName() + ")"
}

func (a *laneAgent) kind() string {
	if a.lane.Kind != "" {
		return a.lane.Kind
	}
	return "command"
}

// stepOutput reads what a step said back from its stdout log: its
// result message (or, without one, its last lines) and its verdict, as
// the controller reads a step's (the last VERDICT line, the result
// message winning).
func stepOutput(spec worker.Spec) (workflow.Output, error) {
	var texts []string
	rep, err := worker.Replay(spec, worker.LogOffsets{}, func(rec transcript.Record) {
		if rec.Stream != transcript.Stdout {
			return
		}
		if rec.Text != "" {
			texts = append(texts, rec.Text)
		}
		for _, e := range rec.Events {
			if e.Type == transcript.EventMessage || e.Type == transcript.EventResult {
				texts = append(texts, e.Text)
			}
		}
	})
	if err != nil {
		return workflow.Output{}, err
	}
	var out workflow.Output
	if r := rep.Summary.Result; r != nil {
		out.Text = r.Text
	} else {
		out.Text = strings.Join(texts[max(len(texts)-maxOutputLines, 0):], "\n")
	}
	if v, ok := workflow.ParseVerdict(append(texts, out.Text)...); ok {
		out.Verdict = &v
	}
	return out, nil
}

// maxOutputLines bounds the text a command step without a result
// message hands on (its last lines).
const maxOutputLines = 20

// commandJudge is the loop's judge = "command": its command, run as a
// Worker of the Lead's runtime (guarded, in the issue's worktree, logs
// in the judge step's folder), decides: exit 0 is done. Its decisions
// carry the workflow package's codes.
type commandJudge struct {
	l    *Lead
	r    *loopRun
	argv []string
}

// Kind names the judge as daokit.toml does.
func (*commandJudge) Kind() string { return config.JudgeCommand }

// Decide runs the command on the round's iteration.
func (j *commandJudge) Decide(_ context.Context, rd workflow.Round) (workflow.JudgeDecision, error) {
	start := time.Now()
	res, spec, err := j.l.runStep(j.r, rd.StepID, workflow.RoleJudge, rd.Iteration, j.argv, "command", "")
	if err != nil {
		return workflow.JudgeDecision{}, err
	}
	out, _ := stepOutput(spec)
	tail := fieldLine(out.Text, 600)
	if res.ExitCode == 0 && res.Signal == 0 {
		return workflow.JudgeDecision{Done: true, Code: workflow.JudgeCommandPassed, Reason: tail, ProcessTime: time.Since(start)}, nil
	}
	return workflow.JudgeDecision{Code: workflow.JudgeCommandFailed, Reason: strings.TrimSpace(fmt.Sprintf("exit %d%s %s", res.ExitCode, signalSuffix(res), tail)),
		ProcessTime: time.Since(start)}, nil
}
