package workflow

import (
	"context"
	"slices"
)

// Sequential runs its agents in order, each once.
type Sequential struct {
	callbacks
	name   string
	agents []Agent
	// Brief makes each agent's instruction; nil means DefaultBrief for a
	// coder/reviewer pair and the task itself for plain steps.
	Brief Brief
}

var _ Flow = (*Sequential)(nil)

// NewSequential returns a flow that runs agents in order.
func NewSequential(name string, agents ...Agent) *Sequential {
	return &Sequential{name: name, agents: agents}
}

// SinglePass is Sequential(coder, reviewer): the coder works, the
// reviewer reviews. There is no judge in it: a loop's judge is asked
// after the pass, by the loop.
func SinglePass(coder, reviewer Agent) *Sequential {
	return NewSequential("single_pass", coder, reviewer)
}

// Name returns the flow's name.
func (s *Sequential) Name() string { return s.name }

// Agents returns the flow's agents in order.
func (s *Sequential) Agents() []Agent { return slices.Clone(s.agents) }

func (s *Sequential) brief() Brief {
	if s.Brief != nil {
		return s.Brief
	}
	return DefaultBrief
}

// Run implements Flow. An agent that escalates stops the flow BLOCKED
// (ReasonEscalated).
func (s *Sequential) Run(ctx context.Context, task Task) (res Result, err error) {
	if len(s.agents) == 0 {
		return Result{}, ErrNoAgents
	}
	cbs, queue, drain := s.snapshot()
	d := startDispatcher(cbs, queue)
	defer func() { res.Dispatch = d.stop(drain) }()
	r := &runner{d: d, mem: memoryOf(task), brief: s.brief()}
	_, verdict, escalated, err := r.body(ctx, s.agents, 0, 0, task.Text, nil)
	if err != nil {
		return Result{}, err
	}
	res.Verdict = verdict
	if escalated != nil {
		res.Blocked, res.Code, res.Reason = true, ReasonEscalated, escalated.Verdict.Reason
	}
	return res, nil
}
