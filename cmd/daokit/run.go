package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/spf13/cobra"
)

// runRun is the Python DAOKit's `run`, done through the controller: the
// goal becomes an instruction for task --task-id (and run --run-id), and
// the command waits for the run's end and prints the Python tool's line.
func newRunCmd(a *app) *cobra.Command {
	c := a.command("run", "cli.run.summary", nil)
	f := c.Flags()
	root := rootFlag(f)
	taskID := f.String("task-id", "", "cli.run.flag.task_id")
	goal := f.String("goal", "", "cli.run.flag.goal")
	runID := f.String("run-id", "", "cli.run.flag.run_id")
	leaseFlags := addRunLeaseFlags(c)
	a.describeRunLeaseFlags(c)
	interrupt := f.Bool("simulate-interruption", false, "cli.run.flag.interrupt")
	initLedger := f.Bool("init", false, "cli.flag.init")
	a.defaultText(f, "run-id", "cli.run.default.run_id")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if *taskID == "" || *goal == "" {
			return a.usage(c, a.t("cli.run.error.required"))
		}
		if err := a.checkIDFlags(c, "task-id", *taskID, "run-id", *runID); err != nil {
			return err
		}
		if err := a.checkRunLeaseFlags(c, leaseFlags, *root); err != nil {
			return err
		}
		return a.runRun(*root, *taskID, *goal, *runID, *interrupt, *initLedger)
	}
	return c
}

func (a *app) runRun(root, taskID, goal, runID string, interrupt, initLedger bool) error {
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_RUN_FAILED", err.Error())
	}
	if err := ledgerOrInit(a, dir, initLedger); err != nil {
		return failf("E_RUN_FAILED", err.Error())
	}
	client, err := a.connect(a.ctx, dir, true, func(pid int) {
		fmt.Fprintln(a.io.err, a.t("cli.send.starting", "PID", pid))
	})
	if err != nil {
		return a.relayFail("E_RUN_FAILED", err)
	}
	defer client.Close()
	if _, err := client.Observe(a.ctx); err != nil {
		return a.relayFail("E_RUN_FAILED", err)
	}
	env := relay.Envelope{ID: relay.NewID(), Type: relay.TypeInstruction, Action: relay.ActionForward}
	if err := env.SetBody(relay.Instruction{Text: goal, TaskID: taskID, RunID: runID}); err != nil {
		return err
	}
	reply, err := client.Send(a.ctx, env)
	if err != nil {
		return a.relayFail("E_RUN_FAILED", err)
	}
	var ack relay.Ack
	if err := reply.DecodeBody(&ack); err != nil {
		return failf("E_RUN_FAILED", err.Error())
	}
	if interrupt {
		return a.simulateInterruption(a.ctx, client, dir, ack)
	}
	if _, err := awaitRunEnd(a.ctx, client, dir, ack.TaskID, ack.RunID, nil); err != nil {
		return a.waitFailed("E_RUN_FAILED", err)
	}
	p := ledger.LoadSnapshot(dir).Pipeline.Value
	a.printf("task_id=%s run_id=%s status=%s current_step=%s\n", ack.TaskID, ack.RunID, p.Status, orNone(p.CurrentStep))
	if p.Status != ledger.StatusDone {
		return failf("E_RUN_FAILED", a.t("cli.run.error.ended", "Status", p.Status, "Reason", orDash(p.RoleLifecycle.Get("route:last_reason"))))
	}
	return nil
}

// simulateInterruption waits until the run's worker runs, then kills the
// controller (SIGKILL) as a crash would, leaving the step's lease ACTIVE
// for the next controller to take over: the Python tool's drill, done for
// real.
func (a *app) simulateInterruption(ctx context.Context, client *relay.Client, root string, ack relay.Ack) error {
	deadline := time.After(controllerStartTimeout)
	for running := false; !running; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return failf("E_RUN_FAILED", a.t("cli.run.error.not_started"))
		case n, ok := <-client.Notices():
			if !ok {
				return failf("E_RUN_FAILED", a.t("cli.send.error.closed"))
			}
			running = n.Kind == relay.NoticeRunState && n.Run != nil && n.Run.TaskID == ack.TaskID && vocab.RunState(n.Run.State) == vocab.StateGenerating
		}
	}
	if pid, err := ledger.LockHolder(root); err == nil && pid > 0 && pid != os.Getpid() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	fmt.Fprintln(a.io.err, "E_RUN_INTERRUPTED: "+a.t("cli.run.interrupted"))
	return &exitError{code: exitInterrupted}
}
