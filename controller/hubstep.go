package controller

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/worker"
)

// relayGrace is what a step's relay gets on top of the lane's stop
// grace: after a stop it waits for the agent host to stop the step and
// send its end back through the hub.
const relayGrace = 5 * time.Second

// hubSpec turns the worker spec of a lane whose steps run on agent
// hosts (lanes.host = "hub") into its relay's: `daokit worker hub`, a
// local process that offers the step through the hub and prints what
// the agent sends back as its own output, and exits with the step's exit
// code. So the rest of the controller treats a remote step exactly as a
// local one: its output reaches the step's logs and the window, its
// silence the heartbeat's WARNING and STALE, its end the judge, a stop
// or a timeout is the relay's SIGTERM (passed on to the agent), and a
// successor that finds the relay gone reads its logs back; a step not
// finished there is followed again by the next relay, not run twice,
// and one whose end the hub holds but the logs here lack (a relay that
// ended while its controller was paused, or on another host) is read
// back from the hub by the next relay (run.readBack; see hub/steps), as
// is one a predecessor offered for the very attempt this controller is
// about to make (it died or was deposed between its offer and its
// record of the step: attempt numbers continue across controllers, see
// run.attempts).
// The step itself (command, kind, instruction, env, timeout, base
// commit) travels in the relay's stdin, and is returned for the
// controller to offer ahead of the relay (offerAhead). Called on the
// state loop.
func (c *Controller) hubSpec(r *run, step string, lane config.Lane, spec worker.Spec) (worker.Spec, steps.Step) {
	p := &r.pipeline
	s := steps.Step{
		Key: steps.Key(p.RunID, step), TaskID: p.TaskID, RunID: p.RunID, StepID: step, Lane: lane.Name,
		Attempt: r.attempt, Kind: spec.Kind, Argv: remoteArgv(spec.Argv, c.opts.Self), Env: remoteEnv(spec.Env),
		Stdin: spec.Stdin, UseStdin: spec.UseStdin,
		TimeoutMS: spec.Timeout.Milliseconds(), StopGraceMS: spec.StopGrace.Milliseconds(),
		ReadBack: r.readBack,
	}
	r.readBack = 0 // once: a later attempt is a step run again
	if t := r.tree; t != nil {
		// Without a remote the relay publishes a bundle of the base.
		s.Commit, s.Remote, s.Bundle = t.wt.Base, c.cfg.Hub.Remote, c.cfg.Hub.Remote == ""
		if rel, err := filepath.Rel(t.wt.Path, t.dir); err == nil && rel != "." {
			s.Subdir = filepath.ToSlash(rel)
		}
	}
	data, _ := json.Marshal(s) // strings and numbers only
	h := c.cfg.Hub
	argv := []string{c.opts.Self, "worker", "hub", "--hub", h.URL, "--root-id", h.RootID}
	if creds := h.CredentialsPath(c.opts.Root); creds != "" {
		argv = append(argv, "--credentials", creds)
	}
	if c.opts.Lang != "" {
		argv = append(argv, "--lang", c.opts.Lang) // what the relay says in the step's log
	}
	// The thresholds the relay is judged by (as the liveness loop rounds
	// them): it speaks before them while its step waits for an agent
	// host or computes there without output, neither of which its own
	// silence and idle CPU would tell from a hang.
	th := c.thresholds()
	argv = append(argv, "--warning-after", (time.Duration(th.WarningAfter) * time.Second).String(),
		"--stale-after", (time.Duration(th.StaleAfter) * time.Second).String())
	relay := spec
	relay.Argv, relay.Stdin, relay.UseStdin = argv, string(data), true
	relay.StopGrace = spec.StopGrace + relayGrace
	return relay, s
}

// remoteArgv names the daokit binary as the agent host's own.
func remoteArgv(argv []string, self string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == self {
			a = steps.SelfArg
		}
		out[i] = a
	}
	return out
}

// remoteEnv is the step's environment without the paths of this host
// (the agent sets its own worktree's).
func remoteEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "DAOKIT_ROOT=") || strings.HasPrefix(kv, worker.EnvWorktree+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
