package workflow

import (
	"context"
	"errors"
	"fmt"
)

// Role is what an agent does in a flow. The values are stored in the
// ledger as they are.
type Role string

// The roles.
const (
	RoleCoder    Role = "coder"    // changes the code
	RoleReviewer Role = "reviewer" // reads the change and gives a verdict
	RoleJudge    Role = "judge"    // decides whether the loop goes on
	RoleStep     Role = "step"     // a step of a plain sequential workflow
)

// Agent is one worker seen from a flow: a lane of sim, any command,
// Claude Code or Codex. Name is the agent's step id within its flow
// (inside a loop it is prefixed by the iteration, "I2-coder").
type Agent interface {
	Name() string
	Role() Role
	// Run does the agent's work on inv and returns what it said. An
	// error means the agent failed; the flow stops and returns it.
	Run(ctx context.Context, inv Invocation) (Output, error)
}

// Invocation is one run of an agent.
type Invocation struct {
	// StepID is the step's id in the ledger.
	StepID string
	Role   Role
	// Iteration is the loop iteration (1-based), 0 outside a loop;
	// MaxIterations is the loop's bound.
	Iteration, MaxIterations int
	// Task is the person's instruction; Instruction what this agent is
	// handed (for a coder after a review, the task and the findings).
	Task, Instruction string
	// Review is the previous review this instruction answers, or nil.
	Review *Verdict
	// Observe reports the agent's text and tool use to the callbacks.
	Observe *Observer
}

// Output is what an agent said when it finished.
type Output struct {
	// Text is the agent's final words (its result message).
	Text string
	// Verdict is the review a reviewer (or an agent judge) gave, if one
	// could be read.
	Verdict *Verdict
}

// Escalates reports whether the output asks the loop to stop and hand
// the run to a person.
func (o Output) Escalates() bool { return o.Verdict != nil && o.Verdict.Escalate }

// AgentInfo names an agent in callbacks.
type AgentInfo struct {
	StepID    string
	Role      Role
	Iteration int
}

// AgentError is an agent's failure as a flow returns it.
type AgentError struct {
	StepID string
	Role   Role
	Err    error
}

// Error implements error.
func (e *AgentError) Error() string { return fmt.Sprintf("agent %s (%s): %v", e.StepID, e.Role, e.Err) }

// Unwrap returns the agent's own error.
func (e *AgentError) Unwrap() error { return e.Err }

// ErrNoAgents is returned for a flow with nothing to run.
var ErrNoAgents = errors.New("workflow: no agents")
