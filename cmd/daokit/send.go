package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/spf13/cobra"
)

// settledRoute is the run a route is at as the projection settles it
// from the route's next action alone (send follows the run over the
// relay and has no pipeline status).
func settledRoute(r relay.Route) projection.Entry {
	return projection.Settled(projection.Entry{TaskID: r.TaskID, RunID: r.RunID, StepID: r.ActiveStep},
		"", vocab.Next(r.NextAction))
}

// runOver reports whether the route says its run is over for send
// --wait: it ended, or waits for its person's review.
func runOver(r relay.Route) bool {
	e := settledRoute(r)
	return e.Final != "" || e.Review
}

// sendFlags are send's options.
type sendFlags struct {
	root, taskID, runID                                    string
	wait, asJSON, noStart, cancelRun, retryRun, initLedger bool
	abandonRun                                             bool
	accept, reject                                         bool
	// followUp sends the text as a follow-up of task taskID.
	followUp bool
	// constraints ride with the instruction as "Constraint:" lines: the
	// worker reads them in its instruction and the window's relay context
	// keeps them (it reads them from the ledger).
	constraints []string
	// remote names a root on a hub: the request goes to its leader
	// through the hub instead of a local controller's socket.
	remote remoteFlags
}

// newSendCmd is `daokit send [options] TEXT...`: the words are joined
// into one instruction; flags may come anywhere, and "--" ends them, so
// that `daokit send -- --root is text` sends the text as written.
func newSendCmd(a *app) *cobra.Command {
	var o sendFlags
	c := a.command("send", "cli.send.summary", nil)
	takesArgs(c, "cli.send.args")
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.BoolVar(&o.wait, "wait", false, "cli.send.flag.wait")
	f.BoolVar(&o.asJSON, "json", false, "cli.flag.json")
	f.BoolVar(&o.noStart, "no-start", false, "cli.send.flag.no_start")
	f.BoolVar(&o.cancelRun, "cancel", false, "cli.send.flag.cancel")
	f.BoolVar(&o.retryRun, "retry", false, "cli.send.flag.retry")
	f.BoolVar(&o.abandonRun, "abandon", false, "cli.send.flag.abandon")
	f.BoolVar(&o.accept, "accept", false, "cli.send.flag.accept")
	f.BoolVar(&o.reject, "reject", false, "cli.send.flag.reject")
	f.StringVar(&o.taskID, "task-id", "", "cli.send.flag.task_id")
	f.StringVar(&o.runID, "run-id", "", "cli.send.flag.run_id")
	f.BoolVar(&o.followUp, "follow-up", false, "cli.send.flag.follow_up")
	f.StringArrayVar(&o.constraints, "constraint", nil, "cli.send.flag.constraint")
	f.BoolVar(&o.initLedger, "init", false, "cli.flag.init")
	a.addRemoteFlags(f, &o.remote)
	c.RunE = func(c *cobra.Command, args []string) error { return a.runSend(c, o, args) }
	return c
}

func (a *app) runSend(c *cobra.Command, o sendFlags, args []string) error {
	if err := a.checkIDFlags(c, "task-id", o.taskID, "run-id", o.runID); err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(args, " "))
	if len(o.constraints) > 0 && (o.accept || o.reject || o.cancelRun || o.retryRun || o.abandonRun || text == "") {
		return a.usage(c, a.t("cli.send.error.constraint_alone"))
	}
	text = withConstraints(text, o.constraints)
	if o.accept || o.reject {
		// The words of a reject are its reason.
		if (o.accept && (o.reject || text != "")) || o.cancelRun || o.retryRun || o.abandonRun {
			return a.usage(c, a.t("cli.send.error.control_alone"))
		}
		kind := relay.ControlAccept
		if o.reject {
			kind = relay.ControlReject
		}
		return a.sendControl(o, relay.Control{Kind: kind, TaskID: o.taskID, RunID: o.runID, Reason: text}, !o.noStart)
	}
	if o.cancelRun || o.retryRun || o.abandonRun {
		kind, chosen := relay.ControlCancel, 0
		for _, k := range []struct {
			on   bool
			kind relay.ControlKind
		}{{o.cancelRun, relay.ControlCancel}, {o.retryRun, relay.ControlRetry}, {o.abandonRun, relay.ControlAbandon}} {
			if k.on {
				kind, chosen = k.kind, chosen+1
			}
		}
		if chosen > 1 || text != "" {
			return a.usage(c, a.t("cli.send.error.control_alone"))
		}
		// A retry may start a controller, which restores the run it names
		// from the ledger; a cancel or an abandon never does: a controller
		// started for them would first resume the very run to be stopped.
		return a.sendControl(o, relay.Control{Kind: kind, TaskID: o.taskID, RunID: o.runID},
			kind == relay.ControlRetry && !o.noStart)
	}
	if text == "" {
		return a.usage(c, a.t("cli.send.error.no_text"))
	}
	if o.followUp && o.taskID == "" {
		return a.usage(c, a.t("cli.send.error.follow_up_task"))
	}
	if o.remote.on() {
		return a.forwardRemote(o, text)
	}
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	if err := ledgerOrInit(a, dir, o.initLedger); err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	client, err := a.connect(a.ctx, dir, !o.noStart, func(pid int) {
		fmt.Fprintln(a.io.err, a.t("cli.send.starting", "PID", pid))
	})
	if err != nil {
		return a.relayFail("E_SEND_FAILED", err)
	}
	defer client.Close()
	if o.wait {
		// Observe first, so that no notice of the run is missed.
		if _, err := client.Observe(a.ctx); err != nil {
			return a.relayFail("E_SEND_FAILED", err)
		}
	}
	var ack relay.Ack
	if o.followUp {
		// More words for a task, briefed to its next step attempt.
		ack, err = client.FollowUp(a.ctx, o.taskID, o.runID, text)
	} else {
		ack, err = client.Forward(a.ctx, text)
	}
	if err != nil {
		return a.relayFail("E_SEND_FAILED", err)
	}
	if err := a.forwardSent(ack, o.asJSON); err != nil {
		return err
	}
	if !o.wait {
		return nil
	}
	return a.follow(a.ctx, client, dir, ack.TaskID, ack.RunID)
}

// forwardSent prints the controller's answer to an instruction.
func (a *app) forwardSent(ack relay.Ack, asJSON bool) error {
	if asJSON {
		return a.writeJSON(ledger.ObjectOf("task_id", ack.TaskID, "run_id", ack.RunID, "active_lane", ack.ActiveLane,
			"active_step", ack.ActiveStep, "next_action", ack.NextAction, "duplicate", ack.Duplicate, "event_id", ack.EventID))
	}
	a.printf("task_id=%s run_id=%s active_lane=%s active_step=%s next_action=%s\n",
		ack.TaskID, ack.RunID, ack.ActiveLane, ack.ActiveStep, ack.NextAction)
	return nil
}

// withConstraints appends one "Constraint: …" line per non-blank
// constraint to text, the form the window's relay context reads.
func withConstraints(text string, constraints []string) string {
	var b strings.Builder
	b.WriteString(text)
	for _, c := range constraints {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			b.WriteString("\nConstraint: ")
			b.WriteString(c)
		}
	}
	return b.String()
}

// follow streams a run's worker output and state changes to stdout until
// the run ends, and fails when it did not end DONE.
func (a *app) follow(ctx context.Context, client *relay.Client, root, taskID, runID string) error {
	route, err := awaitRunEnd(ctx, client, root, taskID, runID, func(n relay.Notice) { a.showNotice(n, taskID, runID) })
	if err != nil {
		return a.waitFailed("E_SEND_FAILED", err)
	}
	return a.runEnded(route)
}

// waitFailed reports a wait for a run's end that did not complete: Ctrl-C
// stays an interruption (exit 130), anything else fails with code.
func (a *app) waitFailed(code string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, relay.ErrClosed):
		return failf(code, a.t("cli.send.error.closed"))
	}
	var gone *controllerGoneError
	if errors.As(err, &gone) {
		return failf(code, a.t("cli.send.error.controller_gone", "PID", gone.pid, "After", deadAfter.String()))
	}
	return a.relayFail(code, err)
}

// awaitRunEnd waits until the run's route names a final next action and
// returns it, handing every notice to show (if set) on the way. After a
// reconnection (a restarted controller) it observes again, since the run
// may have ended meanwhile.
//
// While the connection is down it looks every deadPoll whether any live
// process holds root's lock: after deadAfter without one, the controller
// is dead and nobody resumes the run, and the wait fails with
// *controllerGoneError instead of waiting for ever. A successor that
// takes the root meanwhile is followed.
func awaitRunEnd(ctx context.Context, client *relay.Client, root, taskID, runID string, show func(relay.Notice)) (relay.Route, error) {
	ended := func(r *relay.Route) bool {
		return r != nil && r.TaskID == taskID && r.RunID == runID && runOver(*r)
	}
	poll := time.NewTicker(deadPoll)
	defer poll.Stop()
	var lost time.Time // since when no live controller was seen; zero while connected
	lastPID := liveness.LockFilePID(root)
	for {
		select {
		case <-ctx.Done():
			return relay.Route{}, ctx.Err()
		case <-poll.C:
			if lost.IsZero() {
				continue
			}
			if ctl := liveness.ReadController(root, time.Now()); ctl.Live() {
				lost, lastPID = time.Now(), ctl.PID // a controller holds the root: give it time to answer
			} else if time.Since(lost) >= deadAfter {
				return relay.Route{}, &controllerGoneError{pid: lastPID}
			}
		case st := <-client.States():
			if st.State != relay.StateConnected {
				if lost.IsZero() {
					lost = time.Now()
				}
				continue
			}
			lost = time.Time{}
			if ctl := liveness.ReadController(root, time.Now()); ctl.Live() {
				lastPID = ctl.PID
			}
			// Ask where things stand after a (re)connection. The answer
			// is queued as a status notice behind the notices sent before
			// it, so a run that ended meanwhile (a quick one ends before
			// the first connection is seen here) ends the wait below, once
			// its story has been shown.
			_, _ = client.Observe(ctx)
		case n, ok := <-client.Notices():
			if !ok {
				return relay.Route{}, relay.ErrClosed
			}
			if show != nil {
				show(n)
			}
			if r := noticeRoute(n); ended(r) {
				return *r, nil
			}
		}
	}
}

// A wait for a run's end gives up on a controller that is gone: no live
// process has held the root's lock for deadAfter (looked at every
// deadPoll) since the connection dropped. A window starts a successor
// within a second or two of a crash; deadAfter leaves it that time.
const (
	deadPoll  = 250 * time.Millisecond
	deadAfter = 3 * time.Second
)

// controllerGoneError ends a wait whose controller died with nobody to
// resume the run; pid is the last controller seen holding the root (0
// when none was).
type controllerGoneError struct{ pid int }

// Error is never shown: waitFailed words it in the person's language.
func (e *controllerGoneError) Error() string { return "controller_gone" }

// noticeRoute returns the route a notice carries, if any.
func noticeRoute(n relay.Notice) *relay.Route {
	switch {
	case n.Kind == relay.NoticeRoute:
		return n.Route
	case n.Kind == relay.NoticeStatus && n.Status != nil:
		return &n.Status.Route
	}
	return nil
}

// showNotice prints one notice of the followed run.
func (a *app) showNotice(n relay.Notice, taskID, runID string) {
	mine := func(t, r string) bool { return t == taskID && r == runID }
	switch {
	case n.Kind == relay.NoticeWorkerOutput && n.Output != nil && mine(n.Output.TaskID, n.Output.RunID):
		a.printf("  │ %s\n", say.FromRelay(*n.Output).Words(a.loc))
	case n.Kind == relay.NoticeRunState && n.Run != nil && mine(n.Run.TaskID, n.Run.RunID):
		// Worded by the projection, as the window's conversation does:
		// a run dropped while it waited reads as abandoned.
		r := n.Run
		d := projection.Project(projection.Entry{TaskID: r.TaskID, RunID: r.RunID, StepID: r.StepID,
			State: vocab.RunState(r.State), Reason: vocab.Reason(r.Reason)}, true)
		line := a.t("cli.send.state", "Step", r.StepID, "State", a.word(d.Word))
		if why := d.Detail.Reason; why != "" {
			line += " (" + why.Label(a.loc) + ")"
		}
		a.println(line)
	case n.Kind == relay.NoticeDropped:
		a.println(a.t("cli.send.dropped", "Count", n.Dropped))
	}
}

func (a *app) runEnded(r relay.Route) error {
	switch d := projection.Project(settledRoute(r), false); {
	case d.Need == projection.NeedReview:
		a.println(a.t("cli.send.review", "Task", r.TaskID, "Run", r.RunID))
		return nil
	case d.Done():
		a.println(a.t("cli.send.done", "Task", r.TaskID, "Run", r.RunID))
		return nil
	}
	return failf("E_RUN_FAILED", a.t("cli.send.failed", "Task", r.TaskID, "Run", r.RunID, "Next", vocab.Next(r.NextAction).Label(a.loc)))
}

// sendControl forwards a control request (accept, reject, retry, cancel,
// abandon); the controller decides. With start, a controller is started
// when none runs: after a crash, the person's accept or retry is what
// brings the waiting change or run back.
func (a *app) sendControl(o sendFlags, ctl relay.Control, start bool) error {
	if o.remote.on() {
		ack, err := a.sendRemote(o.remote, func(ctx context.Context, c *remote.Client) (relay.Ack, error) { return c.Control(ctx, ctl) })
		if err != nil {
			return err
		}
		return a.controlSent(ctl, ack, o.asJSON)
	}
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	if err := requireJSONBackend(a, dir); start && err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	client, err := a.connect(a.ctx, dir, start, func(pid int) {
		fmt.Fprintln(a.io.err, a.t("cli.send.starting", "PID", pid))
	})
	if err != nil {
		return a.relayFail("E_SEND_FAILED", err)
	}
	defer client.Close()
	ack, err := client.Control(a.ctx, ctl)
	if err != nil {
		return a.relayFail("E_SEND_FAILED", err)
	}
	return a.controlSent(ctl, ack, o.asJSON)
}

// controlSent prints the controller's answer to a control request.
func (a *app) controlSent(ctl relay.Control, ack relay.Ack, asJSON bool) error {
	if asJSON {
		return a.writeJSON(ledger.ObjectOf("task_id", ack.TaskID, "run_id", ack.RunID, "active_step", ack.ActiveStep,
			"next_action", ack.NextAction, "duplicate", ack.Duplicate))
	}
	a.println(a.t("cli.send.control_sent", "Kind", string(ctl.Kind), "Task", ack.TaskID, "Run", ack.RunID))
	return nil
}
