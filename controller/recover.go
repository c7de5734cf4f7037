package controller

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"syscall"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// recoverWindow is how many of the newest events a starting controller
// reads to rebuild its dedup index and find unfinished instructions. The
// cost of starting must not grow with the ledger's history; an
// instruction older than this window is not resumed.
const recoverWindow = 20000

// found is what the log says about one instruction.
type found struct {
	in       Instruction
	route    ledger.RouteSummary
	finished bool
}

// recover rebuilds the acknowledgements from the log, fences off workers
// a dead controller left behind, and returns the instructions that were
// acknowledged but never finished, oldest first.
func (c *Controller) recover() []found {
	tail, err := ledger.TailEvents(ledger.Layout{Root: c.opts.Root}.Events(), recoverWindow)
	if err != nil {
		c.log.Warn("read events for recovery", "err", err)
	}
	byID := map[string]*found{}
	var order []*found
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range tail.Events {
		if e.EventType != ledger.EventSystem {
			continue
		}
		id := e.Payload.String("message_id")
		switch e.Payload.String("operation") {
		case OpInstruction:
			if target := e.Payload.String("attached_to"); target != "" {
				// An instruction that named an existing run: no run of
				// its own, but a retry of a finished one reopens it.
				c.acks[id] = relay.Ack{Route: toRelayRoute(routeFrom(e.Payload)), EventID: e.EventID}
				if f := byID[target]; f != nil && f.finished {
					f.finished = false
				}
				continue
			}
			at, _ := ledger.ParseTime(e.Payload.String("received_at"))
			route := routeFrom(e.Payload)
			f := &found{in: Instruction{MessageID: id, Text: e.Payload.String("text"), At: at,
				TaskID: route.TaskID, RunID: route.RunID}, route: route}
			if _, dup := byID[id]; !dup && id != "" {
				byID[id] = f
				order = append(order, f)
			}
			c.acks[id] = relay.Ack{Route: toRelayRoute(f.route), EventID: e.EventID}
		case OpControl:
			c.acks[id] = relay.Ack{Route: toRelayRoute(routeFrom(e.Payload)), EventID: e.EventID}
			if f := byID[e.Payload.String("target_message_id")]; f != nil && e.Payload.String("kind") == string(relay.ControlRetry) {
				f.finished = false
			}
		case OpRunFinished:
			if f := byID[id]; f != nil {
				f.finished = true
			}
		}
	}
	c.fenceOrphansLocked()
	var out []found
	for _, f := range order {
		if !f.finished {
			out = append(out, *f)
		}
	}
	return out
}

func routeFrom(payload ledger.Object) ledger.RouteSummary {
	var r ledger.RouteSummary
	if raw, ok := payload.Get("route"); ok {
		_ = json.Unmarshal(raw, &r)
	}
	return r
}

// resume starts the unfinished instructions again. A run the pipeline
// file still shows keeps its progress (finished steps stay finished).
func (c *Controller) resume(list []found) {
	for _, f := range list {
		c.mu.Lock()
		r := c.newRun(f.in)
		if c.pipeline.TaskID == r.pipeline.TaskID && c.pipeline.RunID == r.pipeline.RunID {
			r.pipeline = c.pipeline
			if final := r.pipeline.Status; isFinal(final) {
				// The run ended but the controller died before its marker.
				r.final = final
				c.adopt(r)
				c.mu.Unlock()
				c.recordFinished(r, final, r.pipeline.RoleLifecycle.Get("route:last_reason"))
				close(r.done)
				continue
			}
			step := r.pipeline.CurrentStep
			MarkRetry(&r.pipeline, step, laneOf(c.workflow, step))
		}
		c.adopt(r)
		p := r.pipeline
		c.mu.Unlock()
		e := c.events.system(p.TaskID, p.RunID, p.CurrentStep, ledger.SeverityWarn, OpResumed,
			"message_id", f.in.MessageID, "generation", c.generation, "route", routePayload(RouteOf(&p)))
		c.record(e)
		c.log.Info("resuming instruction", "message_id", f.in.MessageID, "task_id", p.TaskID)
		c.start(r)
	}
}

func isFinal(status string) bool {
	return status == ledger.StatusDone || status == ledger.StatusFailed || status == ledger.StatusBlocked
}

// fenceOrphansLocked takes over every ACTIVE lease a previous controller
// left: a worker of this root that still runs is killed first (its group),
// so that no two workers ever hold one step; then the leases become
// TAKEN_OVER (or EXPIRED), and LEASE_TAKEOVER records it.
func (c *Controller) fenceOrphansLocked() {
	now := c.now()
	runs := map[[2]string]bool{}
	for _, l := range c.leases.Leases {
		if l.Status != ledger.LeaseActive || l.PID == c.pid {
			continue
		}
		if l.Lane != heal.ControllerLane && c.isOurWorker(l.PID, l.TaskID) {
			c.log.Warn("killing a worker left by a previous controller", "pid", l.PID, "task_id", l.TaskID, "step", l.StepID)
			_ = syscall.Kill(-l.PID, syscall.SIGKILL)
		}
		runs[[2]string{l.TaskID, l.RunID}] = true
	}
	for key := range runs {
		res, err := heal.TakeOver(&c.leases, key[0], key[1],
			heal.Holder{ThreadID: "controller-" + strconv.Itoa(c.generation), PID: c.pid}, c.leaseTTL(), now)
		if err != nil {
			continue
		}
		// The adopted leases only bridge to the resumed run, which takes
		// out its own; release them now.
		for _, l := range res.Adopted {
			_ = heal.Release(&c.leases, l.LeaseToken, now)
		}
		takeoverAt := ledger.FormatTime(now)
		e := c.events.typed(key[0], key[1], "", ledger.EventLeaseTakeover, ledger.SeverityWarn,
			"takeover_at", takeoverAt, "adopted_step_ids", nonNil(res.AdoptedSteps()), "failed_step_ids", nonNil(res.FailedSteps),
			"reason_code", "CONTROLLER_SUCCESSION", "generation", c.generation, "superseded_tokens", nonNil(res.Superseded),
			"successor_pid", c.pid)
		e.DedupKey = "succession:" + key[0] + ":" + key[1] + ":" + takeoverAt
		if err := c.journal.append(e); err != nil {
			c.log.Error("record takeover", "err", err)
		}
		if c.pipeline.TaskID == key[0] && c.pipeline.RunID == key[1] {
			c.pipeline.Succession.LastTakeoverAt = takeoverAt
			c.pipeline.RoleLifecycle = c.pipeline.RoleLifecycle.With(keyGeneration, strconv.Itoa(c.generation))
		}
	}
	if len(runs) > 0 {
		c.writeLeasesLocked()
	}
}

// isOurWorker reports whether pid is a live worker of this root and task:
// daokit starts every worker with DAOKIT_ROOT and DAOKIT_TASK_ID in its
// environment. A reused pid of an unrelated process never matches, so it
// is never killed.
func (c *Controller) isOurWorker(pid int, taskID string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	vars := bytes.Split(env, []byte{0})
	has := func(kv string) bool {
		for _, v := range vars {
			if string(v) == kv {
				return true
			}
		}
		return false
	}
	return has("DAOKIT_ROOT="+c.opts.Root) && has("DAOKIT_TASK_ID="+taskID)
}
