package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/hooks"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Operations of the SYSTEM event that records each run of a hook.
const (
	opHookRan     = string(vocab.OpHookRan)
	opHookSkipped = string(vocab.OpHookSkipped)
)

// controllerPoints are the hook points the controller runs; pre-compact
// hooks are the window's.
var controllerPoints = []hooks.Point{hooks.SessionStart, hooks.PreDispatch, hooks.PostAccept}

// lifecycleHooks registers the hooks of daokit.toml at the controller's
// points. A hook that cannot be registered is logged and left out; the
// configuration checks already reported why.
func lifecycleHooks(cfg *config.Config, log *slog.Logger) *hooks.Set {
	set := &hooks.Set{}
	for _, p := range controllerPoints {
		for _, h := range cfg.HookSpecsAt(p.String()) {
			if err := set.Add(hooks.SpecOf(h)); err != nil {
				log.Warn("hook not added", "point", p, "name", h.Name, "err", err)
			}
		}
	}
	return set
}

// hookInput is what a controller hook reads on stdin, as docs/config
// documents it: a relay context in the Python DAOKit's shape. The
// controller has no conversation to relay; it knows the keep set (what
// the pipeline says, read on the state loop), the route of the step at hand and
// the instruction the step hands its worker, and sends just that.
type hookInput struct {
	RelayContext *keepSet `json:"relay_context,omitempty"`
}

// keepSet is relay_context in the order and with the rules compaction
// writes it: text trimmed, blank text left out, the blockers always a
// list, the route's blank fields left out.
type keepSet struct {
	Goal              string        `json:"goal,omitempty"`
	LatestInstruction string        `json:"latest_instruction,omitempty"`
	CurrentBlockers   []string      `json:"current_blockers"`
	Route             *routeSummary `json:"controller_route_summary,omitempty"`
}

// routeSummary is controller_route_summary: ledger.Route with its blank
// fields left out.
type routeSummary struct {
	TaskID     string `json:"task_id,omitempty"`
	RunID      string `json:"run_id,omitempty"`
	ActiveLane string `json:"active_lane,omitempty"`
	ActiveStep string `json:"active_step,omitempty"`
	NextAction string `json:"next_action,omitempty"`
}

// jsonSpace trims what JSON calls white space, as compaction does.
func jsonSpace(s string) string { return strings.Trim(s, " \t\r\n") }

// hookContext encodes a controller hook's input: the pipeline's facts
// with the route of the step at hand and the instruction it hands its
// worker as latest_instruction.
func hookContext(facts compact.Facts, step, lane, instruction, next string) []byte {
	route := facts.Route
	route.ActiveStep, route.ActiveLane, route.NextAction = step, lane, next
	ks := keepSet{Goal: jsonSpace(facts.Goal), LatestInstruction: jsonSpace(instruction), CurrentBlockers: []string{}}
	for _, b := range facts.CurrentBlockers {
		if b = jsonSpace(b); b != "" {
			ks.CurrentBlockers = append(ks.CurrentBlockers, b)
		}
	}
	rs := routeSummary{TaskID: jsonSpace(route.TaskID), RunID: jsonSpace(route.RunID), ActiveLane: jsonSpace(route.ActiveLane),
		ActiveStep: jsonSpace(route.ActiveStep), NextAction: jsonSpace(route.NextAction)}
	if rs != (routeSummary{}) {
		ks.Route = &rs
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)                     // "<" stays "<", as compaction writes it
	_ = enc.Encode(hookInput{RelayContext: &ks}) // strings and lists only: cannot fail
	return asciiJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// asciiJSON escapes every non-ASCII character of encoded JSON as \uXXXX
// (UTF-16, lower-case hex), as compaction and the Python DAOKit's
// json.dumps write it. Outside strings JSON is ASCII, so only string
// contents change.
func asciiJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			continue
		}
		out = fmt.Appendf(out, `\u%04x`, r)
	}
	return out
}

// latestInstruction reads relay_context.latest_instruction from what the
// hooks printed: trimmed text, or "" when it is missing, blank or not
// text.
func latestInstruction(out []byte) string {
	var doc struct {
		RelayContext struct {
			LatestInstruction any `json:"latest_instruction"`
		} `json:"relay_context"`
	}
	if json.Unmarshal(out, &doc) != nil {
		return ""
	}
	s, _ := doc.RelayContext.LatestInstruction.(string)
	return jsonSpace(s)
}

// runHooks runs the hooks at point over input and records each in the
// event log. It returns what the hooks left: input itself when none ran
// or every one was skipped.
func (c *Controller) runHooks(ctx context.Context, point hooks.Point, input []byte, taskID, runID, step string) []byte {
	out := c.hooks.Run(ctx, point, input)
	for _, res := range out.Results {
		op, severity := opHookRan, ledger.SeverityInfo
		kv := []any{"point", point.String(), "hook", res.Name, "status", res.Status.String(), "duration_ms", res.Duration.Milliseconds()}
		if res.Status != hooks.StatusOK {
			op, severity = opHookSkipped, ledger.SeverityWarn
			kv = append(kv, "reason_code", string(res.Code), "reason", res.Reason)
			c.log.Warn("hook skipped", "point", point, "hook", res.Name, "code", res.Code, "reason", res.Reason)
		}
		c.record(c.events.system(taskID, runID, step, severity, op, kv...))
	}
	return out.Output
}

// sessionStart runs the session-start hooks once the controller serves,
// beside the runs, so that a slow hook delays nothing.
func (c *Controller) sessionStart() {
	if len(c.hooks.At(hooks.SessionStart)) == 0 {
		return
	}
	var facts compact.Facts
	c.do(func(st *loopState) {
		facts = compact.PipelineFacts(st.pipeline)
	})
	c.runs.Go(func() {
		in := hookContext(facts, facts.Route.ActiveStep, facts.Route.ActiveLane, "", nextDispatch)
		c.runHooks(c.runCtx, hooks.SessionStart, in, globalID, globalID, "")
	})
}

// preDispatch runs the pre-dispatch hooks before step's worker starts and
// returns the instruction to hand it: the latest_instruction the hooks
// left, or instruction when they left none.
func (c *Controller) preDispatch(ctx context.Context, facts compact.Facts, step, lane, instruction string) string {
	if len(c.hooks.At(hooks.PreDispatch)) == 0 {
		return instruction
	}
	out := c.runHooks(ctx, hooks.PreDispatch, hookContext(facts, step, lane, instruction, nextDispatch), facts.Route.TaskID, facts.Route.RunID, step)
	if changed := latestInstruction(out); changed != "" {
		return changed
	}
	return instruction
}

// postAccept runs the post-accept hooks after step passed acceptance.
// What they print is checked and recorded, not used.
func (c *Controller) postAccept(ctx context.Context, facts compact.Facts, step, lane, instruction string) {
	if len(c.hooks.At(hooks.PostAccept)) == 0 {
		return
	}
	c.runHooks(ctx, hooks.PostAccept, hookContext(facts, step, lane, instruction, ledger.NextActionComplete), facts.Route.TaskID, facts.Route.RunID, step)
}
