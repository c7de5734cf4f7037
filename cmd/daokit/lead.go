package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/daokit/daokit/internal/memtrim"
	"github.com/daokit/daokit/lead"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
	"github.com/spf13/cobra"
)

// newLeadCmd is "daokit lead --role R": one role's resident Lead (seed
// 003, scheme A), normally started and supervised by the controller.
func newLeadCmd(a *app) *cobra.Command {
	c := a.command("lead", "cli.lead.summary", nil)
	f := c.Flags()
	root := rootFlag(f)
	dir := f.String("outbox", "", "cli.outbox.flag.outbox")
	role := f.String("role", "", "cli.lead.flag.role")
	noGuard := f.Bool("no-guard", false, "cli.lead.flag.no_guard")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if *role == "" {
			return a.usage(c, a.t("cli.lead.error.no_role"))
		}
		env, err := a.loadTeam(*root, *dir)
		if err != nil {
			return err
		}
		if _, ok := env.wf.Roles[*role]; !ok {
			return a.usage(c, a.t("cli.outbox.error.role", "Role", *role))
		}
		// The Lead re-checks (and beats) four times within the
		// controller's warning_after, so a live Lead is never judged silent.
		wake := lead.WakeFor(env.cfg.Heartbeat.WarningAfter.Std())
		// A Lead that stops on an error says why in its Exit record, which
		// daokit status and the roles pane show while it is down.
		dead := func(err error, cliErr error) error {
			_ = roster.WriteExit(roster.StatusDir(env.wf), roster.ExitOf(*role, os.Getpid(), err))
			return cliErr
		}
		ob, err := pick.Open(a.ctx, env.wf, pick.Token(env.wf, a.getenv), outbox.Options{WakeInterval: wake})
		if err != nil {
			return dead(err, a.outboxFailure(err))
		}
		defer ob.Close()
		if err := os.MkdirAll(env.wf.MemoryPath(), 0o755); err != nil {
			return dead(err, failf("E_LEAD", err.Error()))
		}
		o := lead.Options{Role: *role, Workflow: env.wf, HardCap: env.cfg.Team.HardCap(*role), Backend: ob,
			WorkerArgv: []string{a.self, "lead", "sim-worker", "--issue", lead.PlaceholderIssue},
			// A loop lane without a worker: the controller's simulated
			// agent, as a coder or a reviewer (a judge lane gives its
			// verdict as a reviewer does).
			SimAgentArgv: []string{a.self, "worker", "sim", "--lang", a.loc.Lang(), "--role", lead.PlaceholderLaneRole, "--", "#" + lead.PlaceholderIssue},
			StatusDir:    roster.StatusDir(env.wf), Liveness: lead.LivenessOf(env.cfg), Beat: wake,
			// Caught up: the pages of the binary it ran only to start
			// go back (memtrim.Settle).
			OnSettled: func() { memtrim.Settle() }}
		if !*noGuard {
			guard, err := a.leadGuard(env.wf, *root)
			if err != nil {
				return dead(err, failf("E_GUARD", a.t("team.lead_exit."+roster.ExitGuardUnavailable, "Detail", roster.ExitOf("", 0, err).Detail)))
			}
			o.Guard = guard
		}
		l, err := lead.New(a.ctx, o)
		if err != nil {
			return dead(err, failf("E_LEAD", err.Error()))
		}
		if err := l.Run(a.ctx); err != nil {
			return dead(err, failf("E_LEAD", err.Error()))
		}
		return nil
	}
	c.AddCommand(newLeadSimWorkerCmd(a), newLeadGuardCmd(a))
	return c
}

// leadGuard is the guard prefix of the Lead's Workers, once a probe has
// shown that it holds here. Where it cannot, the Lead refuses to run
// Workers (a *roster.GuardUnavailableError), unless workflow.toml allows
// them unguarded: then it says so on stderr and runs them without (nil).
func (a *app) leadGuard(wf *team.Workflow, root string) ([]string, error) {
	abs, err := absRoot(root)
	if err != nil {
		return nil, err
	}
	guard := lead.GuardArgv(a.self, lead.GuardOf(wf, abs))
	err = lead.CheckGuard(guard)
	if err == nil {
		return guard, nil
	}
	if !wf.AllowUnguarded {
		return nil, err
	}
	fmt.Fprintln(a.io.err, a.t("team.guard.unguarded", "Detail", roster.ExitOf("", 0, err).Detail))
	return nil, nil
}

// newLeadSimWorkerCmd is the simulated role Worker a Lead starts when
// workflow.toml names no worker command (runs with no key).
func newLeadSimWorkerCmd(a *app) *cobra.Command {
	c := a.command("sim-worker", "cli.lead.sim_worker.summary", nil)
	issue := c.Flags().Int64("issue", 0, "cli.lead.flag.issue")
	c.RunE = func(c *cobra.Command, _ []string) error {
		code := lead.RunSimWorker(a.ctx, strconv.FormatInt(*issue, 10), a.io.in, a.io.out)
		if code != 0 {
			return &exitError{code: code}
		}
		return nil
	}
	return c
}

// newLeadGuardCmd runs a Worker with the outbox and the memory folder
// read-only (Linux mount namespace); the Lead puts it in front of every
// Worker's command line.
func newLeadGuardCmd(a *app) *cobra.Command {
	c := a.command("guard", "cli.lead.guard.summary", nil)
	takesArgs(c, "cli.lead.guard.args")
	ro := c.Flags().StringArray("ro", nil, "cli.lead.guard.flag.ro")
	hide := c.Flags().StringArray("hide", nil, "cli.lead.guard.flag.hide")
	probe := c.Flags().Bool("probe", false, "cli.lead.guard.flag.probe")
	c.RunE = func(c *cobra.Command, args []string) error {
		if os.Getenv(outbox.WorkerEnv) == "" {
			return failf("E_GUARD", a.t("cli.lead.guard.error.not_worker"))
		}
		if *probe {
			if err := lead.ProbeGuard(); err != nil {
				return failf("E_GUARD", err.Error())
			}
			return nil
		}
		if len(args) == 0 {
			return a.usage(c, a.t("cli.lead.guard.error.no_command"))
		}
		code, err := lead.Guard(lead.GuardPaths{ReadOnly: *ro, Hidden: *hide}, args, os.Environ())
		if err != nil {
			fmt.Fprintln(a.io.err, "E_GUARD: "+err.Error())
		}
		if code != 0 {
			return &exitError{code: code}
		}
		return nil
	}
	return c
}
