package workflow

import (
	"context"
	"errors"
	"fmt"
)

// DefaultMaxIterations bounds a loop whose MaxIterations is not set.
const DefaultMaxIterations = 3

// Loop repeats its body (a SinglePass, usually) and, after each
// iteration, asks its Judge whether to go on (shouldContinue). It stops
// when the judge says done (DONE), when MaxIterations iterations ran
// without that (BLOCKED, ReasonMaxIterations), or when an agent or the
// judge escalates (BLOCKED, ReasonEscalated). The reviewer's findings of
// one iteration are handed to the next iteration's coder.
type Loop struct {
	callbacks
	body  *Sequential
	judge Judge
	// MaxIterations bounds the loop (DefaultMaxIterations when 0).
	MaxIterations int
	// Brief makes each agent's instruction; nil means DefaultBrief.
	Brief Brief
}

var _ Flow = (*Loop)(nil)

// NewLoop returns a loop of body, judged by judge.
func NewLoop(body *Sequential, judge Judge, maxIterations int) *Loop {
	return &Loop{body: body, judge: judge, MaxIterations: maxIterations}
}

// Body returns the loop's body.
func (l *Loop) Body() *Sequential { return l.body }

// Judge returns the loop's judge.
func (l *Loop) Judge() Judge { return l.judge }

func (l *Loop) max() int {
	if l.MaxIterations > 0 {
		return l.MaxIterations
	}
	return DefaultMaxIterations
}

// JudgeStep is the name of an iteration's judge step ("I2-judge").
const JudgeStep = "judge"

// Run implements Flow. Callbacks of the loop and of its body both
// observe it.
func (l *Loop) Run(ctx context.Context, task Task) (res Result, err error) {
	if l.body == nil || len(l.body.agents) == 0 {
		return Result{}, ErrNoAgents
	}
	if l.judge == nil {
		return Result{}, errors.New("workflow: loop without a judge")
	}
	cbs, queue, drain := l.snapshot()
	bodyCbs, _, _ := l.body.snapshot()
	d := startDispatcher(append(cbs, bodyCbs...), queue)
	defer func() { res.Dispatch = d.stop(drain) }()
	brief := l.Brief
	if brief == nil {
		brief = DefaultBrief
	}
	mem := memoryOf(task)
	max := l.max()
	var review *Verdict
	for n := 1; n <= max; n++ {
		it := Iteration{N: n, Max: max}
		started, recalled := false, false
		r := &runner{d: d, mem: mem, brief: brief}
		r.begin = func() {
			if !started {
				started, it.Resumed = true, recalled
				d.send(event{kind: evIterationStart, iter: it})
			}
		}
		probe := func(id string) {
			if _, ok := mem.Recall(id); ok && !started {
				recalled = true
			}
		}
		for _, a := range l.body.agents {
			probe(stepID(n, a.Name()))
		}
		outs, verdict, escalated, err := r.body(ctx, l.body.agents, n, max, task.Text, review)
		if err != nil {
			return Result{Iterations: n, Verdict: verdict}, err
		}
		res.Iterations, res.Verdict = n, verdict
		var dec JudgeDecision
		if escalated != nil {
			dec = JudgeDecision{Escalate: true, Code: JudgeEscalated, Reason: escalated.Verdict.Reason}
		} else {
			dec, err = l.shouldContinue(ctx, r, n, max, task.Text, outs, verdict)
			if err != nil {
				return res, err
			}
		}
		if started {
			d.send(event{kind: evIterationEnd, iter: it, res: &IterationResult{Verdict: verdict, Decision: dec}})
		}
		res.Decision = &dec
		switch {
		case dec.Escalate:
			res.Blocked, res.Code, res.Reason = true, ReasonEscalated, dec.Reason
			return res, nil
		case dec.Done:
			return res, nil
		}
		review = verdict
	}
	res.Blocked, res.Code = true, ReasonMaxIterations
	res.Reason = fmt.Sprintf("%d/%d", max, max)
	return res, nil
}

// shouldContinue asks the judge about iteration n, unless memory has its
// decision. The judge runs as the iteration's judge step, observed like
// an agent.
func (l *Loop) shouldContinue(ctx context.Context, r *runner, n, max int, task string, outs []Output, verdict *Verdict) (JudgeDecision, error) {
	id := stepID(n, JudgeStep)
	if rec, ok := r.mem.Recall(id); ok {
		if rec.Decision != nil {
			return *rec.Decision, nil
		}
		// An agent judge whose step finished but whose decision was not
		// recorded yet (a crash between the two): its verdict decides.
		if _, isAgent := l.judge.(AgentJudge); isAgent {
			return decisionOf(rec.Output), nil
		}
	}
	r.begin()
	round := Round{StepID: id, Iteration: n, Max: max, Task: task, Verdict: verdict}
	for i, a := range l.body.agents {
		switch a.Role() {
		case RoleCoder:
			round.Coder = outs[i]
		case RoleReviewer:
			round.Reviewer = outs[i]
		}
	}
	info := AgentInfo{StepID: id, Role: RoleJudge, Iteration: n}
	r.d.send(event{kind: evAgentStart, agent: info})
	round.Observe = &Observer{d: r.d, a: info}
	dec, err := l.judge.Decide(ctx, round)
	if err == nil {
		err = r.mem.Remember(id, RoleJudge, Record{Output: Output{Text: dec.Reason}, Decision: &dec})
	}
	if err != nil {
		r.d.send(event{kind: evAgentFailed, agent: info, err: err})
		return dec, &AgentError{StepID: id, Role: RoleJudge, Err: err}
	}
	r.d.send(event{kind: evAgentEnd, agent: info, out: &Output{Text: dec.Reason}})
	return dec, nil
}
