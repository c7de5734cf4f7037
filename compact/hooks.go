package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/hooks"
)

// BuiltinCompact is the name of the built-in pre-compact hook: Compact
// with the known facts Run is given. It runs in the caller's goroutine,
// in milliseconds even for a hundred thousand entries, so it has no
// timeout of its own.
const BuiltinCompact = "compact"

// Hooks is the window's hooks over its relay context, by point, run in
// the order they were added: the built-in compaction, Go hooks, and hook
// commands run by the hooks package's runner. The zero value has no
// hooks; NewHooks starts with the built-in compaction. Hooks is safe for
// concurrent use.
type Hooks struct {
	mu    sync.Mutex
	hooks []*hook
}

// hook is one registered hook: the built-in compaction, a Go Func, or a
// command.
type hook struct {
	point   hooks.Point
	name    string
	timeout time.Duration
	builtin bool
	fn      Func
	cmd     *hooks.Command
}

// Outcome is the result of running the hooks of one point.
type Outcome struct {
	// Context is the context after every hook that ended with StatusOK,
	// in order; the input itself when none did.
	Context *Context
	// Results has one entry per hook at the point, in order.
	Results []hooks.Result
	// Report is the built-in compaction's report, when it ran and its
	// result was kept.
	Report *Report
}

// NewHooks returns Hooks with the built-in compaction registered at
// PreCompact, so that hooks added later see the compacted context.
func NewHooks() *Hooks {
	return &Hooks{hooks: []*hook{{point: hooks.PreCompact, name: BuiltinCompact, builtin: true}}}
}

// AddFunc registers a Go hook. A zero timeout means hooks.DefaultTimeout.
// Names are unique per point (hooks.hooks.ErrDuplicateHook).
func (h *Hooks) AddFunc(p hooks.Point, name string, timeout time.Duration, fn Func) error {
	if fn == nil {
		return fmt.Errorf("add hook %q: no function", name)
	}
	return h.add(&hook{point: p, name: name, timeout: timeout, fn: fn})
}

// AddCommand registers a hook command after checking the spec.
func (h *Hooks) AddCommand(spec hooks.Spec) error {
	cmd, err := hooks.NewCommand(spec)
	if err != nil {
		return fmt.Errorf("add hook: %w", err)
	}
	return h.add(&hook{point: spec.Point, name: spec.Name, timeout: spec.Timeout, cmd: cmd})
}

func (h *Hooks) add(hk *hook) error {
	if hk.point < hooks.PreDispatch || hk.point > hooks.SessionStart {
		return fmt.Errorf("add hook %q: %w", hk.name, &hooks.UnknownPointError{Value: hk.point.String()})
	}
	if strings.TrimSpace(hk.name) == "" {
		return fmt.Errorf("add hook at %s: name is empty", hk.point)
	}
	if hk.timeout <= 0 {
		hk.timeout = hooks.DefaultTimeout
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, other := range h.hooks {
		if other.point == hk.point && other.name == hk.name {
			return fmt.Errorf("add hook %q at %s: %w", hk.name, hk.point, hooks.ErrDuplicateHook)
		}
	}
	h.hooks = append(h.hooks, hk)
	return nil
}

// Names returns the names of the hooks at p, in the order they run.
func (h *Hooks) Names(p hooks.Point) []string {
	var names []string
	for _, hk := range h.at(p) {
		names = append(names, hk.name)
	}
	return names
}

func (h *Hooks) at(p hooks.Point) []*hook {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*hook
	for _, hk := range h.hooks {
		if hk.point == p {
			out = append(out, hk)
		}
	}
	return out
}

// Run runs the hooks at p over c, in order, each on the context the
// previous ones left. A hook that fails, times out or returns something
// unusable is skipped: its Result says why and the next hook sees the
// context from before it. c itself is never modified. When ctx ends, the
// running hook is stopped and the rest are skipped.
func (h *Hooks) Run(ctx context.Context, p hooks.Point, c *Context, known Facts) Outcome {
	if c == nil {
		c = &Context{}
	}
	out := Outcome{Context: c}
	for _, hk := range h.at(p) {
		res := hooks.Result{Name: hk.name, Point: p}
		if err := ctx.Err(); err != nil {
			res.Status, res.Code, res.Reason = hooks.StatusSkipped, hooks.CodeCancelled, err.Error()
			out.Results = append(out.Results, res)
			continue
		}
		start := time.Now()
		next, rep, res := h.runOne(ctx, hk, out.Context, known, res)
		res.Duration = time.Since(start)
		if res.Status == hooks.StatusOK {
			out.Context = next
			if rep != nil {
				out.Report = rep
			}
		}
		out.Results = append(out.Results, res)
	}
	return out
}

func (h *Hooks) runOne(ctx context.Context, hk *hook, c *Context, known Facts, res hooks.Result) (*Context, *Report, hooks.Result) {
	switch {
	case hk.builtin:
		next, rep := Compact(c, known)
		return next, &rep, res
	case hk.fn != nil:
		next, res := runFunc(ctx, hk, c, known, res)
		return next, nil, res
	default:
		next, res := runCommand(ctx, hk, c, res)
		return next, nil, res
	}
}

// runFunc calls a Go hook on a clone of c, so that a hook that changes
// its context and then fails leaves nothing behind.
func runFunc(ctx context.Context, hk *hook, c *Context, known Facts, res hooks.Result) (next *Context, out hooks.Result) {
	out = res
	hctx, cancel := context.WithTimeout(ctx, hk.timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			next = nil
			out.Status, out.Code, out.Reason = hooks.StatusFailed, hooks.CodePanic, fmt.Sprint(v)
		}
	}()
	next, err := hk.fn(hctx, c.Clone(), known)
	switch {
	case ctx.Err() != nil:
		out.Status, out.Code, out.Reason = hooks.StatusSkipped, hooks.CodeCancelled, ctx.Err().Error()
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		out.Status, out.Code, out.Reason = hooks.StatusTimeout, hooks.CodeTimeout, fmt.Sprintf("returned after its %s timeout", hk.timeout)
	case err != nil:
		out.Status, out.Code, out.Reason = hooks.StatusFailed, hooks.CodeError, err.Error()
	case next == nil:
		out.Status, out.Code, out.Reason = hooks.StatusFailed, hooks.CodeError, "returned no context"
	default:
		return next, out
	}
	return nil, out
}
