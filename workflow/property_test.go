package workflow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// strictRecorder checks the order of callback calls as they arrive.
type strictRecorder struct {
	mu      sync.Mutex
	open    map[string]int // step id → open starts
	iter    int            // open iteration, 0 when none
	iters   []int
	problem []string
	starts  int
}

func (r *strictRecorder) fail(format string, args ...any) {
	r.problem = append(r.problem, fmt.Sprintf(format, args...))
}

func (r *strictRecorder) OnAgentStart(a AgentInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	if r.open[a.StepID] != 0 {
		r.fail("%s started twice", a.StepID)
	}
	if len(r.open) > 0 {
		r.fail("%s started while another agent runs", a.StepID)
	}
	if a.Iteration != r.iter {
		r.fail("%s of iteration %d started in iteration %d", a.StepID, a.Iteration, r.iter)
	}
	r.open[a.StepID]++
}

func (r *strictRecorder) end(a AgentInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open[a.StepID] != 1 {
		r.fail("%s ended without a start", a.StepID)
	}
	delete(r.open, a.StepID)
}

func (r *strictRecorder) inside(a AgentInfo, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open[a.StepID] != 1 {
		r.fail("%s of %s outside its start and end", what, a.StepID)
	}
}

func (r *strictRecorder) OnToolUse(a AgentInfo, _ ToolUse) { r.inside(a, "tool use") }
func (r *strictRecorder) OnText(a AgentInfo, _ Text)       { r.inside(a, "text") }
func (r *strictRecorder) OnToolResult(a AgentInfo, _ ToolResult) {
	r.inside(a, "tool result")
}
func (r *strictRecorder) OnAgentEnd(a AgentInfo, _ Output)   { r.end(a) }
func (r *strictRecorder) OnAgentFailed(a AgentInfo, _ error) { r.end(a) }

func (r *strictRecorder) OnIterationStart(it Iteration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.iter != 0 {
		r.fail("iteration %d started inside iteration %d", it.N, r.iter)
	}
	if n := len(r.iters); n > 0 && r.iters[n-1] >= it.N {
		r.fail("iteration %d after %d", it.N, r.iters[n-1])
	}
	r.iter = it.N
	r.iters = append(r.iters, it.N)
}

func (r *strictRecorder) OnIterationEnd(it Iteration, _ IterationResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.iter != it.N {
		r.fail("iteration %d ended while %d is open", it.N, r.iter)
	}
	if len(r.open) > 0 {
		r.fail("iteration %d ended with agents running", it.N)
	}
	r.iter = 0
}

// TestCallbackOrderProperty runs random loops (random verdicts, failures,
// escalations, bounds, resumes) and checks for each: every OnAgentStart
// has exactly one OnAgentEnd or OnAgentFailed, agent events fall inside
// their iteration, and iterations nest (never overlap, always ascend).
func TestCallbackOrderProperty(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		agent := func(name string, role Role) *fakeAgent {
			return &fakeAgent{name: name, role: role, lines: rng.IntN(4), answer: func(inv Invocation) (Output, error) {
				switch x := rng.IntN(20); {
				case x == 0:
					return Output{}, errBoom
				case x == 1 && role == RoleReviewer:
					return Output{Verdict: &Verdict{Decision: RequestChanges, Escalate: true}}, nil
				case x < 8 && role == RoleReviewer:
					return Output{Verdict: &Verdict{Decision: Approve}}, nil
				case role == RoleReviewer:
					return Output{Verdict: &Verdict{Decision: RequestChanges, Findings: []string{"f"}}}, nil
				}
				return Output{Text: "ok"}, nil
			}}
		}
		mem := &MapMemory{}
		// Half the runs resume: some steps finished before a restart.
		if rng.IntN(2) == 0 {
			for n := 1; n <= rng.IntN(3); n++ {
				_ = mem.Remember(StepID(n, "coder"), RoleCoder, Record{})
				_ = mem.Remember(StepID(n, "reviewer"), RoleReviewer, Record{Output: Output{Verdict: &Verdict{Decision: RequestChanges}}})
				_ = mem.Remember(StepID(n, JudgeStep), RoleJudge, Record{Decision: &JudgeDecision{}})
			}
		}
		var judge Judge = ReviewerApproved{}
		if rng.IntN(3) == 0 {
			judge = AgentJudge{Agent: agent("judge", RoleJudge)}
		}
		l := NewLoop(SinglePass(agent("coder", RoleCoder), agent("reviewer", RoleReviewer)), judge, 1+rng.IntN(5))
		rec := &strictRecorder{open: map[string]int{}}
		l.AddCallback(rec)
		res, err := l.Run(context.Background(), Task{Text: "t", Memory: mem})
		var ae *AgentError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Dispatch.Dropped != 0 || res.Dispatch.Panics != 0 {
			t.Fatalf("seed %d: dispatch %+v", seed, res.Dispatch)
		}
		if len(rec.open) != 0 {
			rec.fail("agents left open: %v", rec.open)
		}
		if err == nil && rec.iter != 0 {
			rec.fail("iteration %d never ended", rec.iter)
		}
		if len(rec.problem) > 0 {
			t.Fatalf("seed %d:\n%s", seed, strings.Join(rec.problem, "\n"))
		}
	}
}
