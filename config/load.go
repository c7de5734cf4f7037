package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// Load reads <root>/daokit.toml. A missing file is not an error: the
// result is DefaultConfig. Any problem (unreadable file, TOML syntax,
// unknown key, wrong type, failed validation) is returned as Errors, and
// the Config is then the zero value: a controller must not run on a file
// the person believes says something else.
func Load(root string) (Config, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Config{}, fmt.Errorf("resolve root: %w", err)
	}
	path := Path(abs)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		cfg := DefaultConfig()
		cfg.Root = abs
		return cfg, nil
	}
	if err != nil {
		return Config{}, Errors{{Code: CodeRead, File: path, Detail: err.Error(), Err: err}}
	}
	return Parse(data, path, abs)
}

// Parse reads the contents of a daokit.toml. file names it in errors (it
// may be empty); root is the absolute ledger root that relative dirs are
// resolved against. The result is validated.
func Parse(data []byte, file, root string) (Config, error) {
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		e := &Error{Code: CodeSyntax, File: file, Detail: err.Error(), Err: err}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Col, e.Detail = pe.Position.Line, pe.Position.Col, pe.Message
		}
		return Config{}, Errors{e}
	}
	cfg := DefaultConfig()
	cfg.Root = root
	p := &problems{file: file}
	decodeConfig(newTable(p, "", raw), &cfg)
	// Validation runs even when some values could not be decoded (they
	// keep their defaults), so that the person sees every problem at
	// once, in the order of the file.
	list := withoutEchoes(p.list, AsErrors(cfg.validate(file)))
	if len(list) > 0 {
		orderOf(md).sort(list)
		return Config{}, list
	}
	return cfg, nil
}

// decodeConfig overlays the file's settings on the defaults in c.
func decodeConfig(t *table, c *Config) {
	if s := t.sub("controller"); s != nil {
		s.duration("idle_exit", &c.Controller.IdleExit)
		s.integer("max_connections", &c.Controller.MaxConnections)
		s.integer("fd_reserve", &c.Controller.FDReserve)
		s.duration("conn_idle_timeout", &c.Controller.ConnIdleTimeout)
		s.duration("conn_read_timeout", &c.Controller.ConnReadTimeout)
		s.done()
	}
	if s := t.sub("heartbeat"); s != nil {
		s.duration("check_interval", &c.Heartbeat.CheckInterval)
		s.duration("warning_after", &c.Heartbeat.WarningAfter)
		s.duration("stale_after", &c.Heartbeat.StaleAfter)
		s.done()
	}
	if s := t.sub("lease"); s != nil {
		s.duration("ttl", &c.Lease.TTL)
		s.done()
	}
	if s := t.sub("restart"); s != nil {
		s.integer("max_restarts", &c.Restart.MaxRestarts)
		s.duration("window", &c.Restart.Window)
		s.duration("backoff_base", &c.Restart.BackoffBase)
		s.duration("backoff_cap", &c.Restart.BackoffCap)
		s.done()
	}
	if s := t.sub("worktrees"); s != nil {
		decodeWorktrees(s, &c.Worktrees)
	}
	if list, ok := t.tables("lanes"); ok {
		c.Lanes = make([]Lane, 0, len(list))
		for _, lt := range list {
			c.Lanes = append(c.Lanes, decodeLane(lt))
		}
	}
	stepsSet := false
	if s := t.sub("workflow"); s != nil {
		var iso string
		if s.str("isolation", &iso) {
			c.Workflow.Isolation = Isolation(iso)
		}
		if list, ok := s.tables("steps"); ok {
			stepsSet = true
			c.Workflow.Steps = make([]Step, 0, len(list))
			for _, st := range list {
				c.Workflow.Steps = append(c.Workflow.Steps, decodeStep(st))
			}
		}
		decodeFlow(s, &c.Workflow)
		if list, ok := s.tables("callbacks"); ok {
			for _, ct := range list {
				c.Workflow.Callbacks = append(c.Workflow.Callbacks, decodeCallback(ct))
			}
		}
		s.done()
	}
	if !stepsSet {
		c.Workflow.Steps = []Step{DefaultStep(defaultWorkflowLane(c.Lanes))}
	}
	if list, ok := t.tables("hooks"); ok {
		for _, ht := range list {
			c.Hooks = append(c.Hooks, decodeHook(ht))
		}
	}
	decodeTeam(t, c)
	if s := t.sub("window"); s != nil {
		s.boolean("bell", &c.Window.Bell)
		s.boolean("title", &c.Window.Title)
		s.strings("notify", &c.Window.Notify)
		s.duration("long_run", &c.Window.LongRun)
		s.boolean("desktop", &c.Window.Desktop)
		s.done()
	}
	decodeRelay(t, c)
	decodeRuns(t, c)
	decodeHub(t, c)
	t.done()
}

// decodeFlow reads the workflow's kind, loop and judge settings.
func decodeFlow(t *table, w *Workflow) {
	var kind string
	if t.str("kind", &kind) {
		w.Kind = FlowKind(kind)
	}
	t.integer("max_iterations", &w.MaxIterations)
	t.str("coder", &w.Coder)
	t.str("reviewer", &w.Reviewer)
	t.str("judge", &w.Judge)
	t.strings("judge_command", &w.JudgeCommand)
	t.str("judge_lane", &w.JudgeLane)
	t.duration("judge_timeout", &w.JudgeTimeout)
	t.number("budget_usd", &w.BudgetUSD)
	t.number("task_budget_usd", &w.TaskBudgetUSD)
	if s := t.sub("prices"); s != nil {
		for _, lane := range s.keys() {
			if pt := s.sub(lane); pt != nil {
				var p Price
				pt.number("input_per_mtok", &p.InputPerMTok)
				pt.number("output_per_mtok", &p.OutputPerMTok)
				pt.done()
				if w.Prices == nil {
					w.Prices = map[string]Price{}
				}
				w.Prices[lane] = p
			}
		}
		s.done()
	}
	if s := t.sub("summary"); s != nil {
		s.integer("every_tool_uses", &w.Summary.EveryToolUses)
		s.duration("every", &w.Summary.Every)
		s.strings("command", &w.Summary.Command)
		s.done()
	}
}

func decodeLane(t *table) Lane {
	l := DefaultLaneConfig("", KindSim)
	t.str("name", &l.Name)
	var kind string
	if t.str("kind", &kind) {
		l.Kind = Kind(kind)
	}
	t.strings("command", &l.Command)
	t.strings("resume_command", &l.ResumeCommand)
	t.boolean("stdin", &l.Stdin)
	t.str("dir", &l.Dir)
	var iso string
	if t.str("isolation", &iso) {
		l.Isolation = Isolation(iso)
	}
	t.env("env", &l.Env)
	t.duration("timeout", &l.Timeout)
	t.duration("stop_grace", &l.StopGrace)
	t.integer("concurrency", &l.Concurrency)
	t.str("deliver", &l.Deliver)
	t.done()
	return l
}

func decodeStep(t *table) Step {
	s := Step{Instruction: PlaceholderInstruction}
	t.str("id", &s.ID)
	t.str("lane", &s.Lane)
	t.str("title", &s.Title)
	t.str("instruction", &s.Instruction)
	t.done()
	return s
}

func decodeHook(t *table) Hook {
	h := Hook{Timeout: Duration(DefaultHookTimeout), Dir: "."}
	t.str("point", &h.Point)
	t.str("name", &h.Name)
	t.strings("command", &h.Command)
	t.duration("timeout", &h.Timeout)
	t.str("dir", &h.Dir)
	t.env("env", &h.Env)
	t.done()
	return h
}

// defaultWorkflowLane is the lane of the default one-step workflow:
// "worker" when there is such a lane, else the first lane.
func defaultWorkflowLane(lanes []Lane) string {
	for _, l := range lanes {
		if l.Name == DefaultLane {
			return DefaultLane
		}
	}
	if len(lanes) > 0 && lanes[0].Name != "" {
		return lanes[0].Name
	}
	return DefaultLane
}
