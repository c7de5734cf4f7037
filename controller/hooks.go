package controller

import (
	"context"
	"log/slog"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

// Operations of the SYSTEM event that records each run of a hook.
const (
	OpHookRan     = "HOOK_RAN"
	OpHookSkipped = "HOOK_SKIPPED"
)

// controllerPoints are the hook points the controller runs; pre-compact
// hooks are the window's.
var controllerPoints = []compact.Point{compact.SessionStart, compact.PreDispatch, compact.PostAccept}

// lifecycleHooks registers the hooks of daokit.toml at the controller's
// points. A hook that cannot be registered is logged and left out; the
// configuration checks already reported why.
func lifecycleHooks(cfg *config.Config, log *slog.Logger) *compact.Hooks {
	hooks := &compact.Hooks{}
	for _, p := range controllerPoints {
		for _, h := range cfg.HookSpecsAt(p.String()) {
			if err := hooks.AddCommand(compact.SpecOf(h)); err != nil {
				log.Warn("hook not added", "point", p, "name", h.Name, "err", err)
			}
		}
	}
	return hooks
}

// hookContext is what a controller hook reads on stdin: a relay context
// whose keep set is what the pipeline knows (facts, read under c.mu) with
// the route of the step at hand, and the instruction the step hands its
// worker as latest_instruction.
func hookContext(facts compact.Facts, step, lane, instruction, next string) *compact.Context {
	facts.LatestInstruction = instruction
	facts.Route.ActiveStep, facts.Route.ActiveLane, facts.Route.NextAction = step, lane, next
	c, _ := compact.Compact(&compact.Context{}, facts)
	return c
}

// runHooks runs the hooks at point over hc and records each in the event
// log. It returns the context the hooks left: hc itself when none ran or
// every one was skipped.
func (c *Controller) runHooks(ctx context.Context, point compact.Point, hc *compact.Context, taskID, runID, step string) *compact.Context {
	if len(c.hooks.Names(point)) == 0 {
		return hc
	}
	out := c.hooks.Run(ctx, point, hc, compact.Facts{})
	for _, res := range out.Results {
		op, severity := OpHookRan, ledger.SeverityInfo
		kv := []any{"point", point.String(), "hook", res.Name, "status", res.Status.String(), "duration_ms", res.Duration.Milliseconds()}
		if res.Status != compact.StatusOK {
			op, severity = OpHookSkipped, ledger.SeverityWarn
			kv = append(kv, "reason_code", string(res.Code), "reason", res.Reason)
			c.log.Warn("hook skipped", "point", point, "hook", res.Name, "code", res.Code, "reason", res.Reason)
		}
		c.record(c.events.system(taskID, runID, step, severity, op, kv...))
	}
	return out.Context
}

// sessionStart runs the session-start hooks once the controller serves,
// beside the runs, so that a slow hook delays nothing.
func (c *Controller) sessionStart() {
	if len(c.hooks.Names(compact.SessionStart)) == 0 {
		return
	}
	c.mu.Lock()
	facts := compact.PipelineFacts(c.pipeline)
	c.mu.Unlock()
	c.runs.Go(func() {
		hc := hookContext(facts, facts.Route.ActiveStep, facts.Route.ActiveLane, "", NextDispatch)
		c.runHooks(c.runCtx, compact.SessionStart, hc, globalID, globalID, "")
	})
}

// preDispatch runs the pre-dispatch hooks before step's worker starts and
// returns the instruction to hand it: the latest_instruction the hooks
// left, or instruction when they left none.
func (c *Controller) preDispatch(ctx context.Context, facts compact.Facts, step, lane, instruction string) string {
	if len(c.hooks.Names(compact.PreDispatch)) == 0 {
		return instruction
	}
	hc := hookContext(facts, step, lane, instruction, NextDispatch)
	out := c.runHooks(ctx, compact.PreDispatch, hc, facts.Route.TaskID, facts.Route.RunID, step)
	if changed := out.Facts().LatestInstruction; changed != "" {
		return changed
	}
	return instruction
}

// postAccept runs the post-accept hooks after step passed acceptance.
// What they print is checked and recorded, not used.
func (c *Controller) postAccept(ctx context.Context, facts compact.Facts, step, lane, instruction string) {
	if len(c.hooks.Names(compact.PostAccept)) == 0 {
		return
	}
	hc := hookContext(facts, step, lane, instruction, ledger.NextActionComplete)
	c.runHooks(ctx, compact.PostAccept, hc, facts.Route.TaskID, facts.Route.RunID, step)
}
