package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/vocab"
	"github.com/spf13/cobra"
)

func newStatusCmd(a *app) *cobra.Command {
	c := quickRead(a.command("status", "cli.status.summary", nil))
	f := c.Flags()
	root := rootFlag(f)
	taskID := f.String("task-id", "", "cli.status.flag.task_id")
	runID := f.String("run-id", "", "cli.status.flag.run_id")
	asJSON := f.Bool("json", false, "cli.flag.json")
	a.defaultText(f, "task-id", "cli.status.default.task_id")
	a.defaultText(f, "run-id", "cli.status.default.run_id")
	var remote remoteFlags
	a.addRemoteFlags(f, &remote)
	c.RunE = func(c *cobra.Command, _ []string) error {
		if remote.on() {
			dir, stop, err := a.remoteFolder(remote, "status")
			if err != nil {
				return err
			}
			defer stop()
			*root = dir
		}
		return a.runStatus(*root, *taskID, *runID, *asJSON, c.Flags().Changed)
	}
	return c
}

func (a *app) runStatus(root, taskID, runID string, asJSON bool, set func(string) bool) error {
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_STATUS_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_STATUS_FAILED", err.Error())
	}
	if (set("task-id") && taskID == "") || (set("run-id") && runID == "") {
		return failf("E_STATUS_FAILED", a.t("cli.status.error.blank_filter"))
	}
	snap := ledger.LoadSnapshot(dir)
	layout := ledger.Layout{Root: dir}
	if err := snap.Pipeline.Err; err != nil {
		return failf("E_STATUS_FAILED", a.fileProblem(layout.Pipeline(), err))
	}
	if err := snap.Heartbeat.Err; err != nil {
		return failf("E_STATUS_FAILED", a.fileProblem(layout.Heartbeat(), err))
	}
	leases := snap.Leases.Value
	if err := snap.Leases.Err; err != nil {
		// A ledger that never held a lease has no register yet (the
		// Python tool writes it on first use); that is not a failure.
		if !errors.Is(err, ledger.ErrMissing) {
			return failf("E_STATUS_FAILED", a.fileProblem(layout.Leases(), err))
		}
		leases = ledger.NewLeases(time.Now())
	}
	p, hb := snap.Pipeline.Value, snap.Heartbeat.Value
	if !set("task-id") {
		taskID = p.TaskID
	}
	if !set("run-id") {
		runID = p.RunID
	}
	var shown []ledger.Lease
	for _, l := range leases.Leases {
		if (taskID == "" || l.TaskID == taskID) && (runID == "" || l.RunID == runID) {
			shown = append(shown, l)
		}
	}
	handoff, handoffErr := loadHandoff(layout)
	if handoffErr != nil {
		fmt.Fprintln(a.io.err, a.t("cli.status.handoff_invalid", "Reason", a.fileProblem(layout.Handoff(), handoffErr)))
	}
	if asJSON {
		o := statusJSON(p, hb, shown, handoff)
		// Only a root with a team gets "roles": other roots print
		// exactly what the Python tool prints.
		o = a.teamOf(dir).withTeam(o)
		return a.writeJSON(o)
	}
	handoffWord := "no"
	if handoff != nil {
		handoffWord = "yes"
	}
	a.printf("task_id=%s run_id=%s status=%s current_step=%s heartbeat=%s leases=%d handoff=%s\n",
		orNone(p.TaskID), orNone(p.RunID), p.Status, orNone(p.CurrentStep), hb.Status, len(shown), handoffWord)
	// The first line keeps the stored word, as the Python tool prints
	// it; the details add the verdict check gives now, by the same rule.
	now := time.Now()
	health := liveness.JudgeLedger(now, liveness.LedgerThresholds(&hb), &p, &hb, &leases, liveness.NewestOutput(layout.Artifacts(), p.TaskID, p.RunID))
	judged := ""
	if health.Status != hb.Status && (health.Status != heal.HealthActive || hb.Status != ledger.HeartbeatRunning) {
		judged = a.t("cli.status.judged", "Status", vocab.Health(health.Status).Label(a.loc), "Silence", health.Silence)
	}
	a.printStatusDetail(p, hb, shown, judged)
	a.printKeptWorktrees(dir)
	a.printRoles(a.teamOf(dir))
	return nil
}

// loadHandoff reads the handoff package if there is one. A corrupt or
// tampered package is reported, never fatal.
func loadHandoff(l ledger.Layout) (*ledger.HandoffPackage, error) {
	data, err := l.ReadFile(ledger.HandoffFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	pkg, err := ledger.ParseHandoffPackage(data)
	if err == nil {
		err = pkg.Validate()
	}
	if err != nil {
		return nil, err
	}
	return &pkg, nil
}

func statusJSON(p ledger.PipelineState, hb ledger.HeartbeatStatus, leases []ledger.Lease, handoff *ledger.HandoffPackage) ledger.Object {
	if leases == nil {
		leases = []ledger.Lease{}
	}
	o := ledger.ObjectOf("pipeline_state", p, "heartbeat_status", hb, "leases", leases)
	if f := flowJSON(p); f != nil {
		// Only runs with a workflow's record: other roots print what the
		// Python tool prints.
		o = o.With("workflow", f)
	}
	if handoff == nil {
		return o.With("handoff_package", nil)
	}
	return o.With("handoff_package", *handoff)
}

// printStatusDetail is the part of status written for people: the goal,
// the steps, the heartbeat and a lease table, with translated labels.
// judged, when not empty, is check's verdict where it differs from the
// stored heartbeat word.
func (a *app) printStatusDetail(p ledger.PipelineState, hb ledger.HeartbeatStatus, leases []ledger.Lease, judged string) {
	w := a.io.out
	fmt.Fprintln(w)
	if p.Goal != "" {
		fmt.Fprintln(w, a.t("cli.status.goal", "Goal", p.Goal))
	}
	if len(p.Steps) > 0 {
		fmt.Fprintln(w, a.t("cli.status.steps"))
		rows := make([][]string, 0, len(p.Steps))
		for _, s := range p.Steps {
			// The window's task list and this table project entries the
			// same way: the current step is the selected entry.
			d := projection.Step(p.RoleLifecycle.Get("step:"+s.ID), s.ID == p.CurrentStep, p.Status == ledger.StatusDone)
			marker := " "
			if d.Selected {
				marker = "▶"
			}
			rows = append(rows, []string{marker + " " + s.ID, s.Title, orDash(worded(a.word(d.Word), d.Word.Value))})
		}
		writeTable(w, "  ", []string{"  " + a.t("cli.status.col.step"), a.t("cli.status.col.title"), a.t("cli.status.col.state")}, rows)
	}
	a.printFlow(w, p)
	a.printPullRequest(w, p)
	a.printAgentState(w, p)
	last := hb.LastHeartbeatAt
	if last == "" {
		last = a.t("cli.status.never")
	}
	reason := orDash(worded(vocab.Reason(hb.ReasonCode).Label(a.loc), hb.ReasonCode))
	fmt.Fprintln(w, a.t("cli.status.heartbeat", "Status", vocab.Health(hb.Status).Label(a.loc), "Last", last, "Reason", reason))
	if judged != "" {
		fmt.Fprintln(w, judged)
	}
	if len(leases) == 0 {
		fmt.Fprintln(w, a.t("cli.status.no_leases"))
		return
	}
	fmt.Fprintln(w, a.t("cli.status.leases"))
	now := time.Now()
	rows := make([][]string, 0, len(leases))
	for _, l := range leases {
		status := worded(vocab.LeaseStatus(l.Status).Label(a.loc), l.Status)
		rows = append(rows, []string{l.Lane, l.StepID, strconv.Itoa(l.PID), l.ThreadID, status, a.expiresIn(l, now)})
	}
	writeTable(w, "  ", []string{
		a.t("cli.status.col.lane"), a.t("cli.status.col.step"), a.t("cli.status.col.pid"),
		a.t("cli.status.col.thread"), a.t("cli.status.col.status"), a.t("cli.status.col.expires"),
	}, rows)
}

// expiresIn says how long an ACTIVE lease has left, or how long ago it
// ran out; finished leases show a dash.
func (a *app) expiresIn(l ledger.Lease, now time.Time) string {
	if l.Status != ledger.LeaseActive {
		return "-"
	}
	t, err := ledger.ParseTime(l.Expiry)
	if err != nil {
		return a.t("cli.status.expiry_invalid")
	}
	d := t.Sub(now).Truncate(time.Second)
	if d <= 0 {
		return a.t("cli.status.expired_ago", "Duration", (-d).String())
	}
	return d.String()
}

// worded shows a stored value in the reader's words with the value
// itself, which a person may grep the ledger for ("failed: max iterations
// reached (failed:max_iterations_reached)"); a value vocab does not know
// (label == stored) shows as it is.
func worded(label, stored string) string {
	if label == stored {
		return stored
	}
	return label + " (" + stored + ")"
}
