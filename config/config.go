package config

import (
	"path/filepath"
	"strings"
	"time"
)

// FileName is the name of the settings file at the ledger root.
const FileName = "daokit.toml"

// DefaultLane is the name of the lane that DefaultConfig defines and that
// the default workflow runs on.
const DefaultLane = "worker"

// Config is the whole of daokit.toml. The zero value is not useful; start
// from DefaultConfig or Load.
type Config struct {
	// Root is the absolute ledger root the file was loaded from. Relative
	// dir settings are resolved against it. Not written in the file.
	Root string `toml:"-"`

	Controller Controller `toml:"controller"`
	Heartbeat  Heartbeat  `toml:"heartbeat"`
	Lease      Lease      `toml:"lease"`
	Restart    Restart    `toml:"restart"`
	// Lanes are the worker lanes, in file order. A file that has any
	// [[lanes]] replaces the default lane list as a whole.
	Lanes    []Lane   `toml:"lanes"`
	Workflow Workflow `toml:"workflow"`
	// Hooks are external commands run at lifecycle points; see Hook.
	Hooks []Hook `toml:"hooks"`
	// Team holds the hard caps of the role Leads and where their
	// workflow.toml is; see Team.
	Team Team `toml:"team"`
	// Window is how the window calls its person; see Window.
	Window Window `toml:"window"`
	// Worktrees holds the git worktree settings of isolated lanes.
	Worktrees Worktrees `toml:"worktrees"`
	// Relay is the relay policy switch; see Relay.
	Relay Relay `toml:"relay"`
	// Compact holds the window's compaction thresholds; see Compact.
	Compact Compact `toml:"compact"`
	// Runs holds the run coordinator's policy switches; see Runs.
	Runs Runs `toml:"runs"`
	// Hub puts the root on a daokit hub; see Hub.
	Hub Hub `toml:"hub"`
}

// Window is how `daokit ui` calls its person when a run needs them: a run
// that ends BLOCKED or FAILED (not cancelled), or that waits for them,
// and a long run that finishes DONE. The window always shows a banner
// saying what to type; these settings add the rest.
type Window struct {
	// Bell rings the terminal bell on those moments. Default true.
	Bell bool `toml:"bell"`
	// Title sets the terminal title ("daokit · needs you") while the
	// person is needed. Default true.
	Title bool `toml:"title"`
	// Notify is a command run on those moments, for example
	// ["notify-send", "daokit", "{message}"]. The placeholders
	// WindowPlaceholders are replaced. Default none.
	Notify []string `toml:"notify"`
	// LongRun is how long a run must have lasted for its DONE to call the
	// person. Default 2m; "0" calls at every finished run.
	LongRun Duration `toml:"long_run"`
	// Desktop sends a notification that reaches the person off the
	// terminal on those moments: OSC 9 and OSC 777 terminal
	// notifications, and notify-send when it is on PATH in a desktop
	// session and Notify is empty. Default true.
	Desktop bool `toml:"desktop"`
}

// WindowPlaceholders are the placeholders of Window.Notify: the banner's
// message, the task and run ids, the need (blocked, failed, finished)
// and the ledger root.
func WindowPlaceholders() []string {
	return []string{"{message}", "{task}", "{run}", "{need}", "{root}"}
}

// Controller holds the controller process's own settings.
type Controller struct {
	// IdleExit is how long a controller with no window attached and no run
	// in progress waits before it exits. Default 60s; 0 means never exit.
	IdleExit Duration `toml:"idle_exit"`
	// MaxConnections caps the socket connections the controller serves
	// at once (windows, `daokit send`). Default 1024. At the cap a new
	// connection displaces the oldest one that has not sent a message;
	// if every connection talks, it is refused with "busy".
	MaxConnections int `toml:"max_connections"`
	// FDReserve is how many file descriptors the controller keeps free
	// for workers whatever the connections: the cap is lowered to the
	// descriptor limit minus this. Default 256.
	FDReserve int `toml:"fd_reserve"`
	// ConnIdleTimeout closes a connection that neither observes nor
	// sends a message for this long. Default 30s.
	ConnIdleTimeout Duration `toml:"conn_idle_timeout"`
	// ConnReadTimeout bounds the time from a message's first byte to its
	// end: a client that dribbles is cut off. Default 10s.
	ConnReadTimeout Duration `toml:"conn_read_timeout"`
}

// Heartbeat holds the thresholds by which the controller judges a worker
// from the time since its last sign of activity (any output line).
// They must satisfy CheckInterval <= WarningAfter <= StaleAfter.
type Heartbeat struct {
	// CheckInterval is how often the controller evaluates every running
	// worker. Default 2s; must be positive.
	CheckInterval Duration `toml:"check_interval"`
	// WarningAfter is the silence after which a worker is shown as
	// WARNING (observed, not touched). Default 20s.
	WarningAfter Duration `toml:"warning_after"`
	// StaleAfter is the silence after which a worker is STALE: the
	// controller stops it and the run fails with WORKER_HUNG (or restarts,
	// by the restart policy). Default 45s.
	StaleAfter Duration `toml:"stale_after"`
}

// Lease holds the timing of the leases a controller holds on the steps it
// runs.
type Lease struct {
	// TTL is how long a lease stays valid without renewal. The controller
	// renews every heartbeat check, so a TTL must outlast at least two
	// missed renewals: TTL >= 3 x heartbeat.check_interval. A lease whose
	// holder died is taken over after at most TTL. Default 30s.
	TTL Duration `toml:"ttl"`
}

// Restart is the policy for restarting a worker that failed in a way that
// may pass (crash, hang). After MaxRestarts restarts within Window the step
// fails with RESTART_LIMIT_REACHED instead of looping.
type Restart struct {
	// MaxRestarts is the number of restarts allowed within Window.
	// Default 5; 0 disables restarts.
	MaxRestarts int `toml:"max_restarts"`
	// Window is the sliding time window over which restarts are counted.
	// Default 10m; must be positive when MaxRestarts > 0.
	Window Duration `toml:"window"`
	// BackoffBase is the wait before the first restart; each further
	// restart doubles it (with jitter) up to BackoffCap. Default 1s.
	BackoffBase Duration `toml:"backoff_base"`
	// BackoffCap bounds the wait between restarts. Default 30s; must be
	// at least BackoffBase.
	BackoffCap Duration `toml:"backoff_cap"`
}

// Lane is a named queue of runs executed by one kind of worker.
type Lane struct {
	// Name identifies the lane in the workflow, the ledger and artifact
	// paths: 1 to 64 of A-Z a-z 0-9 . _ -. Required; unique.
	Name string `toml:"name"`
	// Kind is the worker kind: sim, command, claude or codex. Default sim.
	Kind Kind `toml:"kind"`
	// Command is the program and its arguments, with placeholders such as
	// {instruction} (see Expand). Required for kind command; for the other
	// kinds it defaults to DefaultCommand(Kind).
	Command []string `toml:"command"`
	// ResumeCommand, if set, is run instead of Command to continue a run
	// whose worker reported a resume handle ({session}), for example
	// ["claude", "-p", "--resume", "{session}", "--output-format",
	// "stream-json", "--verbose", "--", "{instruction}"]. Empty: a lane
	// with neither command nor resume_command resumes with its kind's
	// DefaultResumeCommand; any other lane restarts afresh.
	ResumeCommand []string `toml:"resume_command"`
	// Stdin passes the instruction on the worker's standard input instead
	// of (or as well as) the command line. Default false. A command lane
	// must either set Stdin or mention {instruction} in Command.
	Stdin bool `toml:"stdin"`
	// Dir is the worker's working directory, relative to the ledger root
	// unless absolute. Default "." (the root).
	Dir string `toml:"dir"`
	// Isolation is "worktree" (each step in a git worktree of its own),
	// "none" (in Dir itself) or empty: the workflow's isolation, else
	// worktree for agent lanes whose Dir is in a git repository.
	Isolation Isolation `toml:"isolation"`
	// Env adds to (and overrides) the controller's environment.
	Env Env `toml:"env"`
	// Timeout bounds one run of the worker, from start to exit; when it
	// passes the worker is stopped and the run ends timedOut. Default 30m;
	// 0 means no limit (the heartbeat still catches a silent worker).
	Timeout Duration `toml:"timeout"`
	// StopGrace is how long a worker may take to exit after SIGTERM before
	// its process group gets SIGKILL. Default 5s; 0 sends SIGKILL at once.
	StopGrace Duration `toml:"stop_grace"`
	// Concurrency is how many runs of this lane may be active at once;
	// later runs wait, first come first served. Default 1; 1 to 64.
	Concurrency int `toml:"concurrency"`
	// Deliver is how a change of this lane that the person accepted
	// reaches its base branch: "merge" (merged locally; the default) or
	// "pr" (its branch pushed to Worktrees.Remote and a pull request
	// opened on GitHub). See DeliverMerge and DeliverPR.
	Deliver string `toml:"deliver"`
	// LogLimit is the most bytes each of a step's stdout.log and
	// stderr.log keeps; past it the oldest bytes are cut, the newest half
	// kept, and the cut recorded with the step's end. 0 means the default
	// (64 MiB); there is no way to turn the cap off.
	LogLimit int64 `toml:"log_limit"`
}

// Workflow is what an instruction becomes: an ordered list of steps, each
// done by a worker of one lane.
type Workflow struct {
	// Kind is sequential (Steps in order; the default), single (Coder
	// then Reviewer) or loop (Coder then Reviewer until the Judge says
	// done, at most MaxIterations times).
	Kind FlowKind `toml:"kind"`
	// Steps run in order (kind sequential). Default: one step "S1" on
	// lane "worker" (or on the first lane when there is no lane of that
	// name).
	Steps []Step `toml:"steps"`
	// MaxIterations bounds a loop; when it is reached without the judge
	// saying done, the run ends BLOCKED (MAX_ITERATIONS_REACHED).
	// Default 3; 1 to 1000.
	MaxIterations int `toml:"max_iterations"`
	// Coder and Reviewer name the lanes of the single pass (kinds single
	// and loop).
	Coder    string `toml:"coder"`
	Reviewer string `toml:"reviewer"`
	// Judge decides after each iteration of a loop: reviewer_approved
	// (the default), command (JudgeCommand exits 0) or agent (the lane
	// JudgeLane approves).
	Judge        string   `toml:"judge"`
	JudgeCommand []string `toml:"judge_command"`
	JudgeLane    string   `toml:"judge_lane"`
	// JudgeTimeout bounds one run of JudgeCommand. Default 10m.
	JudgeTimeout Duration `toml:"judge_timeout"`
	// Summary configures the summaries of a running step.
	Summary Summaries `toml:"summary"`
	// Prices, by lane name, turn the tokens an agent reports into a cost
	// when the agent reports none itself ([workflow.prices.<lane>]).
	Prices map[string]Price `toml:"prices"`
	// BudgetUSD is what one run may cost, in US dollars, as its agents
	// report it (or Prices make it): a warning at 80 %, and at 100 % the
	// run stops BLOCKED (BUDGET_EXCEEDED) before its next step. 0, the
	// default, sets no limit.
	BudgetUSD float64 `toml:"budget_usd"`
	// TaskBudgetUSD is what all runs of one task may cost together: a
	// run of the task starts with what its earlier runs left of it (or
	// BudgetUSD, if smaller) as its limit. 0, the default, sets none.
	TaskBudgetUSD float64 `toml:"task_budget_usd"`
	// Isolation applies to every lane that does not set its own; see
	// Lane.Isolation. Default empty (automatic).
	Isolation Isolation `toml:"isolation"`
	// Callbacks are the observers a person added ([[workflow.callbacks]]),
	// beside the built-in ledger, summary and metrics callbacks.
	Callbacks []Callback `toml:"callbacks"`
}

// Step is one step of the workflow.
type Step struct {
	// ID names the step in the ledger (step_id), e.g. "S1". Required;
	// unique; same character rules as a lane name.
	ID string `toml:"id"`
	// Lane is the name of the lane that runs the step. Required.
	Lane string `toml:"lane"`
	// Title is a short description shown in the window. Optional.
	Title string `toml:"title"`
	// Instruction is the text handed to the worker, in which
	// {instruction} stands for the person's instruction. Default
	// "{instruction}".
	Instruction string `toml:"instruction"`
}

// Defaults that are not zero values.
const (
	DefaultIdleExit      = 60 * time.Second
	DefaultMaxConns      = 1024
	DefaultFDReserve     = 256
	DefaultConnIdle      = 30 * time.Second
	DefaultConnRead      = 10 * time.Second
	DefaultCheckInterval = 2 * time.Second
	DefaultWarningAfter  = 20 * time.Second
	DefaultStaleAfter    = 45 * time.Second
	DefaultLeaseTTL      = 30 * time.Second
	DefaultMaxRestarts   = 5
	DefaultRestartWindow = 10 * time.Minute
	DefaultBackoffBase   = 1 * time.Second
	DefaultBackoffCap    = 30 * time.Second
	DefaultLaneTimeout   = 30 * time.Minute
	DefaultStopGrace     = 5 * time.Second
	DefaultConcurrency   = 1
	DefaultHookTimeout   = 10 * time.Second
	DefaultLongRun       = 2 * time.Minute
	DefaultStepID        = "S1"
	// MaxConcurrency bounds a lane's concurrency.
	MaxConcurrency = 64
)

// leaseRenewalsToOutlive is how many renewal intervals a lease TTL must
// span: two renewals may be missed (one slow write, one slow tick) before
// a live controller loses its lease.
const leaseRenewalsToOutlive = 3

// DefaultConfig returns the settings of a root without daokit.toml: one
// lane "worker" running the built-in simulated agent, a one-step workflow
// on it, and timings suited to interactive agent work.
func DefaultConfig() Config {
	return Config{
		Controller: Controller{IdleExit: Duration(DefaultIdleExit), MaxConnections: DefaultMaxConns, FDReserve: DefaultFDReserve,
			ConnIdleTimeout: Duration(DefaultConnIdle), ConnReadTimeout: Duration(DefaultConnRead)},
		Heartbeat: Heartbeat{
			CheckInterval: Duration(DefaultCheckInterval),
			WarningAfter:  Duration(DefaultWarningAfter),
			StaleAfter:    Duration(DefaultStaleAfter),
		},
		Lease: Lease{TTL: Duration(DefaultLeaseTTL)},
		Restart: Restart{
			MaxRestarts: DefaultMaxRestarts,
			Window:      Duration(DefaultRestartWindow),
			BackoffBase: Duration(DefaultBackoffBase),
			BackoffCap:  Duration(DefaultBackoffCap),
		},
		Lanes:     []Lane{DefaultLaneConfig(DefaultLane, KindSim)},
		Workflow:  defaultWorkflow(DefaultLane),
		Window:    Window{Bell: true, Title: true, Desktop: true, LongRun: Duration(DefaultLongRun)},
		Worktrees: DefaultWorktrees(),
		Relay:     Relay{Policy: RelayPolicyOn},
		Hub:       Hub{LeaseTTL: DefaultHubLeaseTTL},
		Compact:   DefaultCompact(),
	}
}

// DefaultLaneConfig returns a lane with every setting at its default.
func DefaultLaneConfig(name string, kind Kind) Lane {
	return Lane{
		Name:        name,
		Kind:        kind,
		Dir:         ".",
		Timeout:     Duration(DefaultLaneTimeout),
		StopGrace:   Duration(DefaultStopGrace),
		Concurrency: DefaultConcurrency,
	}
}

// DefaultStep returns the default workflow's single step on lane.
func DefaultStep(lane string) Step {
	return Step{ID: DefaultStepID, Lane: lane, Instruction: PlaceholderInstruction}
}

// Lane returns the lane called name.
func (c *Config) Lane(name string) (Lane, bool) {
	for _, l := range c.Lanes {
		if l.Name == name {
			return l, true
		}
	}
	return Lane{}, false
}

// ConcurrencyLimits maps each lane name to its concurrency, the input of
// the controller's lane scheduler.
func (c *Config) ConcurrencyLimits() map[string]int {
	m := make(map[string]int, len(c.Lanes))
	for _, l := range c.Lanes {
		m[l.Name] = l.Concurrency
	}
	return m
}

// Path returns the path of daokit.toml under root.
func Path(root string) string { return filepath.Join(root, FileName) }

// resolveDir makes dir absolute against root ("" means root itself).
func resolveDir(root, dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(root, dir)
}

// WorkDir returns the lane's working directory, made absolute against root.
func (l Lane) WorkDir(root string) string { return resolveDir(root, l.Dir) }

// Argv returns the command line of a fresh run, placeholders expanded.
func (l Lane) Argv(v Vars) []string {
	cmd := l.Command
	if len(cmd) == 0 {
		cmd = DefaultCommand(l.Kind)
	}
	return Expand(cmd, v)
}

// ResumeArgv returns the command line that continues a run from resume
// handle v.Session, or nil when the lane cannot resume (no
// resume_command, or no handle).
func (l Lane) ResumeArgv(v Vars) []string {
	cmd := l.resumeCommand()
	if len(cmd) == 0 || v.Session == "" {
		return nil
	}
	return Expand(cmd, v)
}

// CanResume reports whether the lane can continue a worker's session:
// it has a resume_command, or runs an agent CLI's default command, which
// comes with the matching DefaultResumeCommand.
func (l Lane) CanResume() bool { return len(l.resumeCommand()) > 0 }

// UsesDefaultCommand reports whether the lane runs its kind's default
// command (no command of its own).
func (l Lane) UsesDefaultCommand() bool { return len(l.Command) == 0 }

func (l Lane) resumeCommand() []string {
	if len(l.ResumeCommand) > 0 || len(l.Command) > 0 {
		return l.ResumeCommand
	}
	return DefaultResumeCommand(l.Kind)
}

// Text returns what the step hands its worker for the person's
// instruction. Only {instruction} is replaced: the other placeholders
// belong to command lines.
func (s Step) Text(instruction string) string {
	t := s.Instruction
	if t == "" {
		t = PlaceholderInstruction
	}
	return strings.ReplaceAll(t, PlaceholderInstruction, instruction)
}
