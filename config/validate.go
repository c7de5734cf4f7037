package config

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/ledger"
)

// validName is what lane names, step ids and hook names may be: they end
// up in ledger fields and artifact paths, so they match the one id
// pattern of the ledger (ledger.IDPattern).
func validName(s string) bool { return ledger.ValidID(s) }

// Validate checks every setting and the rules between them (for example
// check_interval <= warning_after <= stale_after, or that each workflow
// step names an existing lane). It returns Errors listing every problem,
// or nil.
func (c *Config) Validate() error { return c.validate("") }

func (c *Config) validate(file string) error {
	p := &problems{file: file}
	c.validateTimings(p)
	c.validateLanes(p)
	c.validateWorkflow(p)
	c.validateCallbacks(p)
	c.validateHooks(p)
	c.validateTeam(p)
	c.validateWindow(p)
	c.validateWorktrees(p)
	c.validateRelay(p)
	c.validateHub(p)
	return p.err()
}

// placeholder matches a {name} in a command argument.
// Compiled on first use: every daokit command links it, few use it.
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[a-z_]+\}`) })

// validateWindow checks the notify command: a program name, and only the
// placeholders the window fills (a typo would reach the command as is).
func (c *Config) validateWindow(p *problems) {
	w := c.Window
	checkArgv(p, "window.notify", w.Notify, false)
	known := WindowPlaceholders()
	for i, a := range w.Notify {
		for _, ph := range placeholder().FindAllString(a, -1) {
			if !slices.Contains(known, ph) {
				p.add(&Error{Code: CodeEnum, Key: fmt.Sprintf("window.notify[%d]", i), Value: show(ph), Want: strings.Join(known, ", ")})
			}
		}
	}
	atLeast(p, "window.long_run", w.LongRun, 0)
}

// atLeast reports d < min as CodeTooSmall.
func atLeast(p *problems, key string, d Duration, min time.Duration) bool {
	if d.Std() < min {
		p.add(&Error{Code: CodeTooSmall, Key: key, Value: show(d.String()), Want: formatDuration(min)})
		return false
	}
	return true
}

// notBelow reports d < other as CodeOrder.
func notBelow(p *problems, key string, d Duration, otherKey string, other Duration) {
	if d < other {
		p.add(&Error{Code: CodeOrder, Key: key, Value: show(d.String()), Other: otherKey, OtherValue: other.String()})
	}
}

func (c *Config) validateTimings(p *problems) {
	atLeast(p, "controller.idle_exit", c.Controller.IdleExit, 0)
	atLeast(p, "controller.conn_idle_timeout", c.Controller.ConnIdleTimeout, time.Millisecond)
	atLeast(p, "controller.conn_read_timeout", c.Controller.ConnReadTimeout, time.Millisecond)
	if c.Controller.MaxConnections < 1 {
		p.add(&Error{Code: CodeTooSmall, Key: "controller.max_connections", Value: strconv.Itoa(c.Controller.MaxConnections), Want: "1"})
	}
	if c.Controller.FDReserve < 1 {
		p.add(&Error{Code: CodeTooSmall, Key: "controller.fd_reserve", Value: strconv.Itoa(c.Controller.FDReserve), Want: "1"})
	}

	h := c.Heartbeat
	checkOK := atLeast(p, "heartbeat.check_interval", h.CheckInterval, time.Millisecond)
	notBelow(p, "heartbeat.warning_after", h.WarningAfter, "heartbeat.check_interval", h.CheckInterval)
	notBelow(p, "heartbeat.stale_after", h.StaleAfter, "heartbeat.warning_after", h.WarningAfter)

	if atLeast(p, "lease.ttl", c.Lease.TTL, time.Millisecond) && checkOK {
		min := Duration(leaseRenewalsToOutlive) * h.CheckInterval
		notBelow(p, "lease.ttl", c.Lease.TTL,
			fmt.Sprintf("%d × heartbeat.check_interval", leaseRenewalsToOutlive), min)
	}

	r := c.Restart
	if r.MaxRestarts < 0 {
		p.add(&Error{Code: CodeTooSmall, Key: "restart.max_restarts", Value: strconv.Itoa(r.MaxRestarts), Want: "0"})
	}
	if r.MaxRestarts > 0 {
		atLeast(p, "restart.window", r.Window, time.Millisecond)
	}
	atLeast(p, "restart.backoff_base", r.BackoffBase, 0)
	notBelow(p, "restart.backoff_cap", r.BackoffCap, "restart.backoff_base", r.BackoffBase)
}

func (c *Config) validateLanes(p *problems) {
	if len(c.Lanes) == 0 {
		p.add(&Error{Code: CodeRequired, Key: "lanes"})
		return
	}
	first := map[string]string{}
	for i, l := range c.Lanes {
		key := fmt.Sprintf("lanes[%d]", i)
		checkName(p, key+".name", l.Name, first)
		if !validKind(l.Kind) {
			p.add(&Error{Code: CodeEnum, Key: key + ".kind", Value: show(string(l.Kind)), Want: kindNames()})
		}
		checkArgv(p, key+".command", l.Command, l.Kind == KindCommand)
		argv := l.Command
		if len(argv) == 0 {
			argv = DefaultCommand(l.Kind)
		}
		if validKind(l.Kind) && len(argv) > 0 && !l.Stdin && !mentions(argv, PlaceholderInstruction) {
			p.add(&Error{Code: CodeNoInstruction, Key: key + ".command"})
		}
		if len(l.ResumeCommand) > 0 {
			checkArgv(p, key+".resume_command", l.ResumeCommand, true)
			if !mentions(l.ResumeCommand, PlaceholderSession) {
				p.add(&Error{Code: CodeNoSession, Key: key + ".resume_command"})
			}
		}
		checkEnv(p, key+".env", l.Env)
		atLeast(p, key+".timeout", l.Timeout, 0)
		atLeast(p, key+".stop_grace", l.StopGrace, 0)
		switch {
		case l.Concurrency < 1:
			p.add(&Error{Code: CodeTooSmall, Key: key + ".concurrency", Value: strconv.Itoa(l.Concurrency), Want: "1"})
		case l.Concurrency > MaxConcurrency:
			p.add(&Error{Code: CodeTooLarge, Key: key + ".concurrency", Value: strconv.Itoa(l.Concurrency), Want: strconv.Itoa(MaxConcurrency)})
		}
	}
}

func (c *Config) validateWorkflow(p *problems) {
	c.validateFlow(p)
	if len(c.Workflow.Steps) == 0 {
		p.add(&Error{Code: CodeRequired, Key: "workflow.steps"})
		return
	}
	first := map[string]string{}
	for i, s := range c.Workflow.Steps {
		key := fmt.Sprintf("workflow.steps[%d]", i)
		checkName(p, key+".id", s.ID, first)
		if s.Lane == "" {
			p.add(&Error{Code: CodeRequired, Key: key + ".lane"})
		} else if _, ok := c.Lane(s.Lane); !ok && len(c.Lanes) > 0 {
			// With no lanes at all, "lanes is required" already says it.
			p.add(&Error{Code: CodeUnknownLane, Key: key + ".lane", Value: show(s.Lane)})
		}
	}
}

// validateFlow checks the kind and the single pass, loop and judge
// settings.
func (c *Config) validateFlow(p *problems) {
	w := c.Workflow
	kind := w.Flow()
	if !slices.Contains(FlowKinds(), kind) {
		names := make([]string, 0, 3)
		for _, k := range FlowKinds() {
			names = append(names, string(k))
		}
		p.add(&Error{Code: CodeEnum, Key: "workflow.kind", Value: show(string(w.Kind)), Want: strings.Join(names, ", ")})
		return
	}
	for _, b := range []struct {
		key string
		v   float64
	}{{"workflow.budget_usd", w.BudgetUSD}, {"workflow.task_budget_usd", w.TaskBudgetUSD}} {
		if b.v < 0 {
			p.add(&Error{Code: CodeTooSmall, Key: b.key, Value: strconv.FormatFloat(b.v, 'g', -1, 64), Want: "0"})
		}
	}
	for _, lane := range sortedKeys(w.Prices) {
		key := "workflow.prices." + lane
		c.checkLaneRef(p, key, lane, true)
		pr := w.Prices[lane]
		if pr.InputPerMTok < 0 {
			p.add(&Error{Code: CodeTooSmall, Key: key + ".input_per_mtok", Value: strconv.FormatFloat(pr.InputPerMTok, 'g', -1, 64), Want: "0"})
		}
		if pr.OutputPerMTok < 0 {
			p.add(&Error{Code: CodeTooSmall, Key: key + ".output_per_mtok", Value: strconv.FormatFloat(pr.OutputPerMTok, 'g', -1, 64), Want: "0"})
		}
	}
	if kind == FlowSequential {
		return
	}
	c.checkLaneRef(p, "workflow.coder", w.Coder, true)
	c.checkLaneRef(p, "workflow.reviewer", w.Reviewer, true)
	if kind != FlowLoop {
		return
	}
	switch {
	case w.MaxIterations < 1:
		p.add(&Error{Code: CodeTooSmall, Key: "workflow.max_iterations", Value: strconv.Itoa(w.MaxIterations), Want: "1"})
	case w.MaxIterations > MaxMaxIterations:
		p.add(&Error{Code: CodeTooLarge, Key: "workflow.max_iterations", Value: strconv.Itoa(w.MaxIterations), Want: strconv.Itoa(MaxMaxIterations)})
	}
	switch w.Judge {
	case JudgeReviewerApproved:
	case JudgeCommand:
		checkArgv(p, "workflow.judge_command", w.JudgeCommand, true)
		atLeast(p, "workflow.judge_timeout", w.JudgeTimeout, time.Millisecond)
	case JudgeAgent:
		c.checkLaneRef(p, "workflow.judge_lane", w.JudgeLane, true)
	default:
		p.add(&Error{Code: CodeEnum, Key: "workflow.judge", Value: show(w.Judge), Want: strings.Join(JudgeKinds(), ", ")})
	}
	if w.Summary.EveryToolUses < 0 {
		p.add(&Error{Code: CodeTooSmall, Key: "workflow.summary.every_tool_uses", Value: strconv.Itoa(w.Summary.EveryToolUses), Want: "0"})
	}
	atLeast(p, "workflow.summary.every", w.Summary.Every, 0)
	if len(w.Summary.Command) > 0 {
		checkArgv(p, "workflow.summary.command", w.Summary.Command, true)
	}
}

func sortedKeys(m map[string]Price) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkLaneRef requires a setting that names an existing lane.
func (c *Config) checkLaneRef(p *problems, key, lane string, required bool) {
	switch _, ok := c.Lane(lane); {
	case lane == "" && required:
		p.add(&Error{Code: CodeRequired, Key: key})
	case lane != "" && !ok && len(c.Lanes) > 0:
		p.add(&Error{Code: CodeUnknownLane, Key: key, Value: show(lane)})
	}
}

func (c *Config) validateHooks(p *problems) {
	first := map[string]string{}
	for i, h := range c.Hooks {
		key := fmt.Sprintf("hooks[%d]", i)
		point, ok := NormalizeHookPoint(h.Point)
		switch {
		case h.Point == "":
			p.add(&Error{Code: CodeRequired, Key: key + ".point"})
		case !ok:
			p.add(&Error{Code: CodeEnum, Key: key + ".point", Value: show(h.Point), Want: strings.Join(HookPoints(), ", ")})
		}
		// Names are unique per point, as in the Python hook runtime.
		checkName(p, key+".name", h.Name, first, point+"/")
		checkArgv(p, key+".command", h.Command, true)
		atLeast(p, key+".timeout", h.Timeout, time.Millisecond)
		checkEnv(p, key+".env", h.Env)
	}
}

// checkName checks a name's presence, characters and uniqueness; first
// maps scope+name to the key of its first use.
func checkName(p *problems, key, name string, first map[string]string, scope ...string) {
	switch {
	case name == "":
		p.add(&Error{Code: CodeRequired, Key: key})
		return
	case !validName(name):
		p.add(&Error{Code: CodeName, Key: key, Value: show(name)})
		return
	}
	id := name
	if len(scope) > 0 {
		id = scope[0] + name
	}
	if prev, dup := first[id]; dup {
		p.add(&Error{Code: CodeDuplicate, Key: key, Value: show(name), Other: prev})
		return
	}
	first[id] = key
}

// checkArgv requires a program name when the command is required or
// given at all.
func checkArgv(p *problems, key string, argv []string, required bool) {
	switch {
	case len(argv) == 0 && required:
		p.add(&Error{Code: CodeRequired, Key: key})
	case len(argv) > 0 && argv[0] == "":
		p.add(&Error{Code: CodeRequired, Key: key + "[0]"})
	}
}

func checkEnv(p *problems, key string, env Env) {
	for j, kv := range env {
		if !validEnvEntry(kv) {
			p.add(&Error{Code: CodeEnv, Key: fmt.Sprintf("%s[%d]", key, j), Value: show(kv)})
		}
	}
}

func validKind(k Kind) bool {
	for _, known := range Kinds() {
		if k == known {
			return true
		}
	}
	return false
}
