package workflow

import (
	"context"
	"fmt"
)

// Task is what a flow works on.
type Task struct {
	// Text is the person's instruction.
	Text string
	// Memory keeps finished steps; nil means a fresh MapMemory.
	Memory Memory
}

// Result is how a flow ended when no agent failed.
type Result struct {
	// Blocked means the flow stopped to wait for a person; Code says why
	// (ReasonMaxIterations, ReasonEscalated), Reason in words.
	Blocked      bool
	Code, Reason string
	// Iterations is how many loop iterations ran (or resumed); 0 for a
	// flow that is not a loop.
	Iterations int
	// Verdict is the last review, Decision the last judge decision.
	Verdict  *Verdict
	Decision *JudgeDecision
	// Dispatch counts what callbacks missed.
	Dispatch DispatchStats
}

// Flow is a workflow agent: Sequential or Loop.
type Flow interface {
	// Run runs the flow to its end. An agent's failure ends it with an
	// *AgentError; the context's end with the context's error.
	Run(ctx context.Context, task Task) (Result, error)
	// AddCallback attaches an observer.
	AddCallback(cb Callback)
}

// runner is one run of a flow: its callbacks' dispatcher and memory.
type runner struct {
	d     *dispatcher
	mem   Memory
	brief Brief
	// begin, when set, is called before the first step that really runs
	// (the loop fires OnIterationStart lazily through it).
	begin func()
}

// step runs agent a on inv unless memory says it finished; ran reports
// whether it ran now.
func (r *runner) step(ctx context.Context, a Agent, inv Invocation) (out Output, ran bool, err error) {
	if rec, ok := r.mem.Recall(inv.StepID); ok {
		return rec.Output, false, nil
	}
	if r.begin != nil {
		r.begin()
	}
	info := AgentInfo{StepID: inv.StepID, Role: inv.Role, Iteration: inv.Iteration}
	r.d.send(event{kind: evAgentStart, agent: info})
	inv.Observe = &Observer{d: r.d, a: info}
	out, err = a.Run(ctx, inv)
	if err == nil {
		err = r.mem.Remember(inv.StepID, inv.Role, Record{Output: out})
	}
	if err != nil {
		r.d.send(event{kind: evAgentFailed, agent: info, err: err})
		return Output{}, true, &AgentError{StepID: inv.StepID, Role: inv.Role, Err: err}
	}
	r.d.send(event{kind: evAgentEnd, agent: info, out: &out})
	return out, true, nil
}

// body runs agents in order as one pass: iteration it of max (0 outside
// a loop), each step id prefixed. It returns the outputs, the last
// review, and whether an agent escalated.
func (r *runner) body(ctx context.Context, agents []Agent, it, max int, task string, review *Verdict) (outs []Output, verdict *Verdict, escalated *Output, err error) {
	var coder *Output
	for _, a := range agents {
		inv := Invocation{StepID: stepID(it, a.Name()), Role: a.Role(), Iteration: it, MaxIterations: max, Task: task}
		inv.Instruction = r.brief(BriefInput{Role: a.Role(), Task: task, Iteration: it, Review: review, Coder: coder})
		if a.Role() == RoleCoder {
			inv.Review = review
		}
		out, _, err := r.step(ctx, a, inv)
		if err != nil {
			return outs, verdict, nil, err
		}
		outs = append(outs, out)
		switch a.Role() {
		case RoleCoder:
			coder = &outs[len(outs)-1]
		case RoleReviewer:
			verdict = out.Verdict
		}
		if out.Escalates() {
			return outs, verdict, &out, nil
		}
	}
	return outs, verdict, nil, nil
}

// stepID is an agent's step id: its name, prefixed "I<n>-" in a loop.
func stepID(it int, name string) string {
	if it == 0 {
		return name
	}
	return fmt.Sprintf("I%d-%s", it, name)
}

// StepID returns the step id of agent name in loop iteration it (0:
// outside a loop).
func StepID(it int, name string) string { return stepID(it, name) }

func memoryOf(t Task) Memory {
	if t.Memory == nil {
		return &MapMemory{}
	}
	return t.Memory
}
