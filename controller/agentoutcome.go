package controller

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// opAgentRetry: an agent CLI retries a request its model provider failed
// (payload: lane, status, error, attempt, max_retries, delay_ms, failure,
// and stopping:true when daokit stops the CLI because the retry cannot
// succeed). Recorded once for each different retry, so that a CLI waiting
// for the network does not fill the ledger.
const opAgentRetry = string(vocab.OpAgentRetry)

// Lifecycle keys of a step's agent, each followed by the step id: what
// its CLI retries now ("401 authentication_failed, 2/10"), cleared when
// the attempt ends, and the calls its permissions refused in its last
// attempt ("Edit main.go; Bash go build"). Status and the window read
// them from the pipeline.
const (
	keyAgentRetry  = "agent_retry:"
	keyAgentDenied = "agent_denied:"
)

// AgentRetrying returns what step's agent CLI is retrying, "" when
// nothing: the detail of its latest retry, as transcript.RetryDetail
// words it.
func AgentRetrying(p ledger.PipelineState, step string) string {
	return p.RoleLifecycle.Get(keyAgentRetry + step)
}

// AgentDenied returns the calls the permissions of step's agent refused
// in its last attempt, "" when none.
func AgentDenied(p ledger.PipelineState, step string) string {
	return p.RoleLifecycle.Get(keyAgentDenied + step)
}

// agentRetried handles a retry the agent CLI reported: the step shows it
// as its state ("retrying (401 …)"), the ledger records it, and a retry
// that cannot succeed stops the CLI at once rather than after its own
// retries (about three minutes for Claude Code): its provider refused the
// credentials and will refuse them again. Run goroutine only.
func (c *Controller) agentRetried(r *run, step, lane string, proc *worker.Process, ev transcript.Event) {
	if ev.Retry == nil {
		return
	}
	rt := *ev.Retry
	detail := transcript.RetryDetail(rt)
	if detail == "" {
		detail = transcript.OneLine(ev.Text, 200)
	}
	futile := rt.Futile()
	var p *ledger.PipelineState
	var same bool
	var taskID, runID string
	c.do(func(*loopState) {
		p = &r.pipeline
		same = p.RoleLifecycle.Get(keyAgentRetry+step) == detail
		if !same && detail != "" {
			p.RoleLifecycle = p.RoleLifecycle.With(keyAgentRetry+step, detail)
		}
		taskID, runID = p.TaskID, p.RunID
	})
	if !same {
		kv := []any{"lane", lane, "status", rt.Status, "error", rt.Error, "attempt", rt.Attempt,
			"max_retries", rt.Max, "delay_ms", rt.DelayMS, "failure", ev.Failure}
		if futile {
			kv = append(kv, "stopping", true)
		}
		c.note(c.events.system(taskID, runID, step, ledger.SeverityWarn, opAgentRetry, kv...))
		c.persistSoon(r)
	}
	if futile && r.agentStopped != proc {
		// Once: a second Stop would SIGKILL the CLI before it cleans up
		// its tools' process groups.
		r.agentStopped = proc
		proc.Stop(transcript.StopAgentFailed)
	}
}

// agentEnded settles the step's agent state when an attempt ends: no
// retry is going on any more, and the calls refused in this attempt (if
// any) replace those of the one before.
func (c *Controller) agentEnded(r *run, step string, s worker.Summary) {
	c.do(func(*loopState) {
		p := &r.pipeline
		lc := p.RoleLifecycle.Without(keyAgentRetry + step)
		if d := deniedText(s); d != "" {
			lc = lc.With(keyAgentDenied+step, d)
		} else {
			lc = lc.Without(keyAgentDenied + step)
		}
		p.RoleLifecycle = lc
	})
}

// agentDetail adds to a step's end what its agent CLI said about the
// outcome: the refused calls ("denied": [{tool, target}], and
// "denied_more" past those kept), the failure kind it named, its last
// error, and its last retry.
func agentDetail(detail ledger.Object, s worker.Summary) ledger.Object {
	if len(s.Denied) > 0 {
		list := make([]any, len(s.Denied))
		for i, d := range s.Denied {
			list[i] = ledger.ObjectOf("tool", d.Tool, "target", d.Target)
		}
		detail = detail.With("denied", list)
		if s.DeniedMore > 0 {
			detail = detail.With("denied_more", s.DeniedMore)
		}
	}
	if s.Failure != "" {
		detail = detail.With("agent_failure", s.Failure)
		text := s.LastError
		if s.Result != nil && s.Result.Failed && s.Result.Text != "" {
			text = s.Result.Text
		}
		if text != "" {
			detail = detail.With("agent_error", transcript.OneLine(text, 500))
		}
	}
	if rt := s.Retry; rt != nil {
		detail = detail.With("last_retry", transcript.RetryDetail(*rt))
	}
	return detail
}

// deniedText words the refused calls for a person, in any language:
// "Edit main.go; Bash go build (+3)".
func deniedText(s worker.Summary) string {
	parts := make([]string, 0, len(s.Denied))
	for _, d := range s.Denied {
		parts = append(parts, strings.TrimSpace(d.Tool+" "+d.Target))
	}
	text := strings.Join(parts, "; ")
	if s.DeniedMore > 0 {
		text += " (+" + strconv.Itoa(s.DeniedMore) + ")"
	}
	return text
}

// agentArgv adapts a lane's default command line to where its worker
// runs: Codex refuses a folder outside any git repository unless told
// (config.OutsideGit). A command of the lane's own is run as written.
func agentArgv(lane config.Lane, argv []string, dir string) []string {
	if !lane.UsesDefaultCommand() || lane.Kind != config.KindCodex || insideGitRepo(dir) {
		return argv
	}
	return config.OutsideGit(lane.Kind, argv)
}

// insideGitRepo reports whether dir is in a git work tree: it or a
// folder above it has a .git entry (a folder, or a worktree's file).
func insideGitRepo(dir string) bool {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(d)
		if up == d {
			return false
		}
		d = up
	}
}
