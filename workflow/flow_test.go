package workflow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSequentialRunsInOrder(t *testing.T) {
	var log []string
	s := NewSequential("steps",
		&fakeAgent{name: "S1", role: RoleStep, log: &log},
		&fakeAgent{name: "S2", role: RoleStep, log: &log},
		&fakeAgent{name: "S3", role: RoleStep, log: &log})
	rec := &recorder{}
	s.AddCallback(rec)
	res, err := s.Run(context.Background(), Task{Text: "do it"})
	if err != nil || res.Blocked {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if want := []string{"S1", "S2", "S3"}; !slices.Equal(log, want) {
		t.Fatalf("order %v, want %v", log, want)
	}
	got := rec.get()
	if got[0] != "start S1" || got[len(got)-1] != "end S3" {
		t.Fatalf("callbacks %v", got)
	}
}

func TestSinglePassHasNoJudge(t *testing.T) {
	var log []string
	c, r := coder(&log), reviewer(&log, 1)
	sp := SinglePass(c, r)
	agents := sp.Agents()
	if len(agents) != 2 || agents[0] != Agent(c) || agents[1] != Agent(r) {
		t.Fatalf("SinglePass agents = %v", agents)
	}
	for _, a := range agents {
		if a.Role() == RoleJudge {
			t.Fatalf("SinglePass holds a judge")
		}
	}
	res, err := sp.Run(context.Background(), Task{Text: "x"})
	if err != nil || res.Decision != nil {
		t.Fatalf("single pass = %+v, %v (no judge decision expected)", res, err)
	}
	if !slices.Equal(log, []string{"coder", "reviewer"}) {
		t.Fatalf("ran %v", log)
	}
	// Inside a loop, the judge runs after the pass, never within it.
	log = nil
	j := &countingJudge{}
	l := NewLoop(SinglePass(coder(&log), reviewer(&log, 1)), j, 3)
	if _, err := l.Run(context.Background(), Task{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if j.n != 1 || !slices.Equal(log, []string{"I1-coder", "I1-reviewer"}) {
		t.Fatalf("judge calls %d, agents %v", j.n, log)
	}
}

type countingJudge struct {
	ReviewerApproved
	n int
}

func (j *countingJudge) Decide(ctx context.Context, r Round) (JudgeDecision, error) {
	j.n++
	return j.ReviewerApproved.Decide(ctx, r)
}

func TestLoopStopsWhenJudgeDone(t *testing.T) {
	var log []string
	c := coder(&log)
	l := NewLoop(SinglePass(c, reviewer(&log, 2)), ReviewerApproved{}, 5)
	rec := &recorder{}
	l.AddCallback(rec)
	res, err := l.Run(context.Background(), Task{Text: "add a --json flag"})
	if err != nil || res.Blocked || res.Iterations != 2 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if res.Decision == nil || res.Decision.Code != JudgeReviewerApproved || res.Decision.Reason != "tests cover it" {
		t.Fatalf("decision %+v", res.Decision)
	}
	want := []string{"I1-coder", "I1-reviewer", "I2-coder", "I2-reviewer"}
	if !slices.Equal(log, want) {
		t.Fatalf("ran %v, want %v", log, want)
	}
	// The findings of iteration 1 reach the coder of iteration 2.
	second := c.calls[1]
	if !strings.Contains(second.Instruction, "handler.go: handle the empty body (iteration 1)") ||
		!strings.Contains(second.Instruction, "add a --json flag") || second.Review == nil {
		t.Fatalf("second coder's instruction lacks the findings:\n%s", second.Instruction)
	}
	if strings.Contains(c.calls[0].Instruction, "findings") {
		t.Fatalf("first coder got findings: %q", c.calls[0].Instruction)
	}
	lines := rec.get()
	if !slices.Contains(lines, "iter-end 1 done=false code=JUDGE_CHANGES_REQUESTED") ||
		!slices.Contains(lines, "iter-end 2 done=true code=JUDGE_REVIEWER_APPROVED") {
		t.Fatalf("iteration ends missing: %v", lines)
	}
}

func TestLoopBlocksAtMaxIterations(t *testing.T) {
	var log []string
	l := NewLoop(SinglePass(coder(&log), reviewer(&log, 0)), ReviewerApproved{}, 3)
	res, err := l.Run(context.Background(), Task{Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Blocked || res.Code != ReasonMaxIterations || res.Iterations != 3 || len(log) != 6 {
		t.Fatalf("Run = %+v after %v", res, log)
	}
}

func TestLoopStopsOnEscalate(t *testing.T) {
	var log []string
	esc := &fakeAgent{name: "reviewer", role: RoleReviewer, log: &log, answer: func(Invocation) (Output, error) {
		return Output{Verdict: &Verdict{Decision: RequestChanges, Escalate: true, Reason: "needs a product decision"}}, nil
	}}
	j := &countingJudge{}
	l := NewLoop(SinglePass(coder(&log), esc), j, 5)
	res, err := l.Run(context.Background(), Task{Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Blocked || res.Code != ReasonEscalated || res.Reason != "needs a product decision" || res.Iterations != 1 || j.n != 0 {
		t.Fatalf("Run = %+v, judge calls %d", res, j.n)
	}
	// A judge may escalate too.
	l = NewLoop(SinglePass(coder(nil), reviewer(nil, 0)), escalatingJudge{}, 5)
	if res, _ := l.Run(context.Background(), Task{Text: "x"}); res.Code != ReasonEscalated {
		t.Fatalf("judge escalation: %+v", res)
	}
}

type escalatingJudge struct{ ReviewerApproved }

func (escalatingJudge) Decide(context.Context, Round) (JudgeDecision, error) {
	return JudgeDecision{Escalate: true, Code: JudgeEscalated, Reason: "stuck"}, nil
}

func TestLoopAgentFailureStops(t *testing.T) {
	bad := &fakeAgent{name: "coder", role: RoleCoder, answer: func(Invocation) (Output, error) { return Output{}, errBoom }}
	l := NewLoop(SinglePass(bad, reviewer(nil, 1)), ReviewerApproved{}, 3)
	rec := &recorder{}
	l.AddCallback(rec)
	_, err := l.Run(context.Background(), Task{Text: "x"})
	var ae *AgentError
	if !errors.As(err, &ae) || ae.StepID != "I1-coder" || !errors.Is(err, errBoom) {
		t.Fatalf("err = %v", err)
	}
	if got := rec.get(); got[len(got)-1] != "failed I1-coder" {
		t.Fatalf("callbacks %v", got)
	}
}

// A flow run again on the same memory skips what finished and resumes
// the first step that did not: iteration 3's coder finished, so the run
// goes on with iteration 3's reviewer.
func TestLoopResumesMidIteration(t *testing.T) {
	mem := &MapMemory{}
	changes := Output{Verdict: &Verdict{Decision: RequestChanges, Reason: "r", Findings: []string{"fix the cache"}}}
	for n := 1; n <= 2; n++ {
		_ = mem.Remember(StepID(n, "coder"), RoleCoder, Record{Output: Output{Text: "coded"}})
		_ = mem.Remember(StepID(n, "reviewer"), RoleReviewer, Record{Output: changes})
		_ = mem.Remember(StepID(n, JudgeStep), RoleJudge, Record{Decision: &JudgeDecision{Code: JudgeChangesRequested}})
	}
	_ = mem.Remember(StepID(3, "coder"), RoleCoder, Record{Output: Output{Text: "coded"}})
	var log []string
	l := NewLoop(SinglePass(coder(&log), reviewer(&log, 3)), ReviewerApproved{}, 5)
	rec := &recorder{}
	l.AddCallback(rec)
	res, err := l.Run(context.Background(), Task{Text: "x", Memory: mem})
	if err != nil || res.Blocked || res.Iterations != 3 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if !slices.Equal(log, []string{"I3-reviewer"}) {
		t.Fatalf("ran %v, want only I3-reviewer", log)
	}
	got := rec.get()
	if got[0] != "iter-start 3 resumed=true" {
		t.Fatalf("callbacks %v", got)
	}
}

// A callback that panics on every call and one that blocks forever do
// not stall the run, and a well-behaved callback still sees everything.
func TestCallbacksIsolated(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	chatty := coder(nil)
	chatty.lines = 200
	l := NewLoop(SinglePass(chatty, reviewer(nil, 2)), ReviewerApproved{}, 3)
	l.SetDispatch(64, time.Second)
	l.AddCallback(panicky{})
	l.AddCallback(blocking{release: release})
	rec := &recorder{}
	l.AddCallback(rec)
	done := make(chan Result)
	go func() {
		res, err := l.Run(context.Background(), Task{Text: "x"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var res Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run stalled behind its callbacks")
	}
	if res.Iterations != 2 || res.Dispatch.Panics == 0 || res.Dispatch.Dropped == 0 || res.Dispatch.Abandoned != 1 {
		t.Fatalf("result %+v", res)
	}
	if got := rec.get(); len(got) == 0 || got[len(got)-1] != "iter-end 2 done=true code=JUDGE_REVIEWER_APPROVED" {
		t.Fatalf("the good callback missed events: %v", got)
	}
}

type panicky struct{ NopCallback }

func (panicky) OnAgentStart(AgentInfo)                    { panic("observer bug") }
func (panicky) OnText(AgentInfo, Text)                    { panic("observer bug") }
func (panicky) OnIterationEnd(Iteration, IterationResult) { panic("observer bug") }

type blocking struct {
	NopCallback
	release chan struct{}
}

func (b blocking) OnAgentStart(AgentInfo) { <-b.release }

func TestCommandJudge(t *testing.T) {
	dec, err := CommandJudge{Argv: []string{"sh", "-c", "echo ok"}}.Decide(context.Background(), Round{})
	if err != nil || !dec.Done || dec.Code != JudgeCommandPassed || dec.Reason != "ok" {
		t.Fatalf("passing command: %+v %v", dec, err)
	}
	dec, err = CommandJudge{Argv: []string{"sh", "-c", "echo FAIL pkg/api; exit 3"}}.Decide(context.Background(), Round{})
	if err != nil || dec.Done || dec.Code != JudgeCommandFailed || !strings.Contains(dec.Reason, "FAIL pkg/api") {
		t.Fatalf("failing command: %+v %v", dec, err)
	}
	dec, err = CommandJudge{Argv: []string{"sleep", "10"}, Timeout: 20 * time.Millisecond}.Decide(context.Background(), Round{})
	if err != nil || dec.Done || dec.Code != JudgeCommandTimedOut {
		t.Fatalf("timed-out command: %+v %v", dec, err)
	}
}

// A judge whose child keeps its output open (a test server in a session
// of its own) and which ignores SIGTERM ends at its timeout, and its
// whole tree with it: the loop goes on.
func TestCommandJudgeTimeoutEndsAStdoutHoldingTree(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	script := `trap '' TERM; setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" & echo serving; sleep 600`
	dec, err := CommandJudge{Argv: []string{"sh", "-c", script, "sh", pidFile}, Timeout: 300 * time.Millisecond}.
		Decide(context.Background(), Round{})
	if err != nil || dec.Done || dec.Code != JudgeCommandTimedOut || !strings.Contains(dec.Reason, "serving") {
		t.Fatalf("judge: %+v %v", dec, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for end := time.Now().Add(20 * time.Second); ; {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			break
		}
		if time.Now().After(end) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the judge's server %d outlived it", pid)
		}
		<-time.After(5 * time.Millisecond)
	}
}

// zombie reports whether pid has ended but is not reaped yet.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := strings.LastIndexByte(string(b), ')')
	return err == nil && i > 0 && strings.HasPrefix(string(b[i+1:]), " Z")
}

func TestAgentJudge(t *testing.T) {
	j := AgentJudge{Agent: &fakeAgent{name: "judge", role: RoleJudge, answer: func(inv Invocation) (Output, error) {
		if inv.Iteration < 2 {
			return Output{Verdict: &Verdict{Decision: RequestChanges, Reason: "not yet"}}, nil
		}
		return Output{Verdict: &Verdict{Decision: Approve, Reason: "done"}}, nil
	}}}
	var log []string
	l := NewLoop(SinglePass(coder(&log), reviewer(&log, 1)), j, 4)
	res, err := l.Run(context.Background(), Task{Text: "x"})
	if err != nil || res.Iterations != 2 || res.Decision.Code != JudgeAgentDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}
