package main

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/daokit/daokit/worker"
	"github.com/spf13/cobra"
)

// newWorkerCmd is "daokit worker <kind>". The only built-in kind is the
// simulated coding agent; real agents are configured as commands.
func newWorkerCmd(a *app) *cobra.Command {
	c := a.group("worker", "cli.worker.summary", "cli.worker.error.missing_kind", "cli.worker.error.unknown_kind")
	c.AddCommand(newWorkerSimCmd(a))
	c.AddCommand(newWorkerHubCmd(a))
	return c
}

// newWorkerSimCmd is "daokit worker sim [options] [instruction]". Its
// exit code is the simulation's, so that a drill's crash or failure is
// exactly what the controller sees.
func newWorkerSimCmd(a *app) *cobra.Command {
	c := a.command("sim", "cli.worker.sim.summary", nil)
	takesArgs(c, "cli.worker.args")
	f := c.Flags()
	seed := f.Uint64("seed", 1, "cli.worker.flag.seed")
	duration := f.Duration("duration", worker.DefaultSimDuration, "cli.worker.flag.duration")
	lines := f.Int("lines", worker.DefaultSimLines, "cli.worker.flag.lines")
	hang := f.Bool("hang", false, "cli.worker.flag.hang")
	hangAfter := f.Int("hang-after", 0, "cli.worker.flag.hang_after")
	silent := f.Bool("silent", false, "cli.worker.flag.silent")
	crash := f.Bool("crash", false, "cli.worker.flag.crash")
	crashAfter := f.Int("crash-after", 0, "cli.worker.flag.crash_after")
	exitCode := f.Int("exit-code", 0, "cli.worker.flag.exit_code")
	flood := f.Duration("flood", 0, "cli.worker.flag.flood")
	floodLines := f.Int("flood-lines", 0, "cli.worker.flag.flood_lines")
	floodRate := f.Int("flood-rate", 0, "cli.worker.flag.flood_rate")
	ignoreTerm := f.Bool("ignore-term", false, "cli.worker.flag.ignore_term")
	role := f.String("role", worker.SimRoleCoder, "cli.worker.flag.role")
	approveAt := f.Int("approve-at", worker.DefaultSimApproveAt, "cli.worker.flag.approve_at")
	neverApprove := f.Bool("never-approve", false, "cli.worker.flag.never_approve")
	escalate := f.Bool("escalate", false, "cli.worker.flag.escalate")
	commit := f.Bool("commit", false, "cli.worker.flag.commit")
	trace := f.String("trace", "", "cli.worker.flag.trace")
	c.RunE = func(c *cobra.Command, args []string) error {
		opts := worker.SimOptions{
			Instruction:  strings.Join(args, " "),
			Seed:         *seed,
			Duration:     *duration,
			Lines:        *lines,
			Hang:         *hang || *hangAfter > 0,
			HangAfter:    *hangAfter,
			Silent:       *silent,
			Crash:        *crash || *crashAfter > 0,
			CrashAfter:   *crashAfter,
			ExitCode:     *exitCode,
			FloodFor:     *flood,
			FloodLines:   *floodLines,
			FloodRate:    *floodRate,
			Role:         *role,
			ApproveAt:    *approveAt,
			NeverApprove: *neverApprove,
			Escalate:     *escalate,
			Commit:       *commit,
			Loc:          a.loc,
		}
		// The controller tells a step of a loop which iteration it is in.
		opts.Iteration, _ = strconv.Atoi(os.Getenv("DAOKIT_ITERATION"))
		return a.runWorkerSim(c, opts, *ignoreTerm, *trace)
	}
	return c
}

func (a *app) runWorkerSim(c *cobra.Command, opts worker.SimOptions, ignoreTerm bool, trace string) error {
	for name, v := range map[string]int64{
		"duration": int64(opts.Duration), "lines": int64(opts.Lines), "hang-after": int64(opts.HangAfter),
		"crash-after": int64(opts.CrashAfter), "flood": int64(opts.FloodFor), "flood-lines": int64(opts.FloodLines),
		"flood-rate": int64(opts.FloodRate), "exit-code": int64(opts.ExitCode), "approve-at": int64(opts.ApproveAt),
	} {
		if v < 0 {
			return a.usage(c, a.t("cli.worker.error.negative", "Flag", name))
		}
	}
	if opts.Role != worker.SimRoleCoder && opts.Role != worker.SimRoleReviewer {
		return a.usage(c, a.t("cli.worker.error.role", "Role", opts.Role))
	}
	if ignoreTerm {
		// Only SIGKILL ends the drill now: the case the stop grace period
		// and SIGKILL escalation exist for.
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv(worker.EnvWorktree) != "" {
		// Only in a step's own worktree: the edits are real there.
		if wd, err := os.Getwd(); err == nil {
			opts.EditDir = wd
		}
	}
	if trace != "" {
		if err := worker.AppendSimTrace(trace, worker.SimTraceStart); err != nil {
			return err
		}
	}
	if code := worker.RunSim(a.ctx, opts, a.io.out, a.io.err); code != 0 {
		return &exitError{code: code}
	}
	if trace != "" {
		// Only a run that wrote its result and exits 0 is done.
		return worker.AppendSimTrace(trace, worker.SimTraceDone)
	}
	return nil
}
