package workflow

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/vocab"
)

// Reason codes of judge decisions and of how a flow stopped. They are
// stored in the ledger and labelled in the reader's language.
const (
	JudgeReviewerApproved = string(vocab.JudgeReviewerApproved) // the reviewer approved
	JudgeChangesRequested = string(vocab.JudgeChangesRequested) // the reviewer asked for changes
	JudgeNoVerdict        = string(vocab.JudgeNoVerdict)        // no verdict could be read
	JudgeCommandPassed    = string(vocab.JudgeCommandPassed)    // the judge command exited 0
	JudgeCommandFailed    = string(vocab.JudgeCommandFailed)    // it exited non-zero (or did not start)
	JudgeCommandTimedOut  = string(vocab.JudgeCommandTimedOut)  // it ran past judge_timeout; its tree was killed
	JudgeAgentDone        = string(vocab.JudgeAgentDone)        // the judge agent approved
	JudgeAgentContinue    = string(vocab.JudgeAgentContinue)    // the judge agent wants another round
	JudgeEscalated        = string(vocab.JudgeEscalated)        // an agent or the judge handed the run to a person

	// ReasonMaxIterations ends a loop that used all its iterations: the
	// run is BLOCKED, waiting for a person.
	ReasonMaxIterations = string(vocab.ReasonMaxIterations)
	// ReasonEscalated ends a flow in which an agent escalated: BLOCKED.
	ReasonEscalated = string(vocab.ReasonEscalated)
)

// JudgeDecision is the judge's answer to shouldContinue, with its reason.
type JudgeDecision struct {
	Done     bool   `json:"done"`
	Escalate bool   `json:"escalate,omitempty"`
	Code     string `json:"code"`
	Reason   string `json:"reason,omitempty"`
	// ProcessTime is the judge command's own wall time, from its fork to
	// its reaping (zero for other judges, and for a decision recalled
	// after a restart): what the loop's callbacks report as the judge's.
	ProcessTime time.Duration `json:"-"`
}

// Round is what a judge decides on: one finished iteration.
type Round struct {
	StepID          string
	Iteration, Max  int
	Task            string
	Coder, Reviewer Output
	// Verdict is the reviewer's, or nil when none could be read.
	Verdict *Verdict
	Observe *Observer
}

// Judge decides after each iteration whether the loop is done.
type Judge interface {
	// Kind names the judge in the ledger ("reviewer_approved", …).
	Kind() string
	Decide(ctx context.Context, r Round) (JudgeDecision, error)
}

// ReviewerApproved is the built-in judge that is done when the reviewer
// approved.
type ReviewerApproved struct{}

// Kind implements Judge.
func (ReviewerApproved) Kind() string { return "reviewer_approved" }

// Decide implements Judge.
func (ReviewerApproved) Decide(_ context.Context, r Round) (JudgeDecision, error) {
	switch v := r.Verdict; {
	case v == nil:
		return JudgeDecision{Code: JudgeNoVerdict}, nil
	case v.Decision == Approve:
		return JudgeDecision{Done: true, Code: JudgeReviewerApproved, Reason: v.Reason}, nil
	default:
		return JudgeDecision{Code: JudgeChangesRequested, Reason: v.Reason}, nil
	}
}

// CommandJudge is the built-in judge that runs a command (such as
// `go test ./...`): exit code 0 means done.
type CommandJudge struct {
	Argv []string
	// Dir is where the command runs: the run's worktree when it has one
	// (the controller decides it per round, see the controller's judge).
	Dir     string
	Env     []string // added to the process's environment
	Timeout time.Duration
	// BaseEnv, when not nil, replaces the controller's environment
	// under Env: the command runs code an agent wrote (its tests), so
	// the controller leaves out what agents must not get (the GitHub
	// token it opens pull requests with).
	BaseEnv []string
}

// Kind implements Judge.
func (CommandJudge) Kind() string { return "command" }

// tailBytes is how much of the command's output becomes the reason.
const tailBytes = 600

// judgeOutputMax is how much of the command's output is kept (its end):
// a test suite may print megabytes; its lines are shown and its tail
// quoted.
const judgeOutputMax = 256 << 10

// Decide implements Judge. The command runs through the process runtime:
// its whole tree is killed when ctx ends, when the timeout passes, and
// when the command exits (a test server it left in the background would
// otherwise hold its output, and the loop, for ever).
func (j CommandJudge) Decide(ctx context.Context, r Round) (JudgeDecision, error) {
	if len(j.Argv) == 0 {
		return JudgeDecision{}, errors.New("workflow: command judge without a command")
	}
	cmd := exec.Command(j.Argv[0], j.Argv[1:]...)
	cmd.Dir = j.Dir
	base := j.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(base[:len(base):len(base)], j.Env...)
	out := &proc.Tail{Max: judgeOutputMax}
	// The judge dies with the controller rather than finish unrecorded.
	cmd.SysProcAttr = judgeSysProcAttr()
	cmd.Stdout, cmd.Stderr = out, out
	o := proc.Run(ctx, cmd, j.Timeout)
	text := out.String()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			r.Observe.Text(Text{Body: line})
		}
	}
	tail := strings.TrimSpace(text)
	if len(tail) > tailBytes {
		tail = "…" + tail[len(tail)-tailBytes:]
	}
	var exit *exec.ExitError
	switch {
	case o.Cancelled && errors.Is(context.Cause(ctx), context.Canceled):
		return JudgeDecision{}, ctx.Err()
	case o.Cancelled:
		// The caller's deadline: the judge failed to decide in time.
		return JudgeDecision{Code: JudgeCommandFailed, Reason: strings.TrimSpace(ctx.Err().Error() + "\n" + tail), ProcessTime: o.Took}, nil
	case o.TimedOut:
		// The code says it ran out of time, in the reader's language; the
		// reason is what it printed.
		return JudgeDecision{Code: JudgeCommandTimedOut, Reason: tail, ProcessTime: o.Took}, nil
	case o.Err == nil, errors.Is(o.Err, exec.ErrWaitDelay):
		// ErrWaitDelay: it exited 0 and something it left held its
		// output; that is gone now.
		return JudgeDecision{Done: true, Code: JudgeCommandPassed, Reason: tail, ProcessTime: o.Took}, nil
	case errors.As(o.Err, &exit):
		return JudgeDecision{Code: JudgeCommandFailed, Reason: strings.TrimSpace(o.Err.Error() + "\n" + tail), ProcessTime: o.Took}, nil
	default:
		return JudgeDecision{Code: JudgeCommandFailed, Reason: o.Err.Error()}, nil
	}
}

// AgentJudge is a judge that is an agent lane: it is run like any agent
// (as the iteration's judge step) and its verdict decides: approve means
// done, anything else another round.
type AgentJudge struct{ Agent Agent }

// Kind implements Judge.
func (AgentJudge) Kind() string { return "agent" }

// Decide implements Judge.
func (j AgentJudge) Decide(ctx context.Context, r Round) (JudgeDecision, error) {
	out, err := j.Agent.Run(ctx, Invocation{StepID: r.StepID, Role: RoleJudge, Iteration: r.Iteration,
		MaxIterations: r.Max, Task: r.Task, Instruction: judgeBrief(r), Review: r.Verdict, Observe: r.Observe})
	if err != nil {
		return JudgeDecision{}, err
	}
	return decisionOf(out), nil
}

func decisionOf(out Output) JudgeDecision {
	switch v := out.Verdict; {
	case v == nil:
		return JudgeDecision{Code: JudgeNoVerdict, Reason: clipRunes(strings.TrimSpace(out.Text), maxReasonRunes)}
	case v.Escalate:
		return JudgeDecision{Escalate: true, Code: JudgeEscalated, Reason: v.Reason}
	case v.Decision == Approve:
		return JudgeDecision{Done: true, Code: JudgeAgentDone, Reason: v.Reason}
	default:
		return JudgeDecision{Code: JudgeAgentContinue, Reason: v.Reason}
	}
}
