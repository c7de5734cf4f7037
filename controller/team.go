package controller

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/vocab"
)

// The role Leads (seed 003, scheme A) are supervised like workers: each is
// a process of its own holding a lease (lane lead-<role>, task "team"),
// its status file is its heartbeat (WARNING, then STALE: stopped and
// restarted), a Lead that exits is restarted with backoff up to the
// restart policy's bound, and a controller that succeeds another takes
// their leases over (fenceOrphans kills Leads left running, since
// they carry DAOKIT_ROOT and DAOKIT_TASK_ID=team like workers).
const (
	// teamTask is the task id of the Leads' leases.
	teamTask = "team"
	// Operations of the Leads' events.
	opLeadStarted      = string(vocab.OpLeadStarted)
	opLeadExited       = string(vocab.OpLeadExited)
	opLeadRestartLimit = string(vocab.OpLeadRestartLimit)
	// opOutboxEvent mirrors one outbox event into the ledger, so that the
	// window's event pane shows the team's traffic.
	opOutboxEvent = string(vocab.OpOutboxEvent)
)

// leadLane is the lease lane of role's Lead.
func leadLane(role string) string { return "lead-" + role }

// teamSup is the controller's side of the Leads.
type teamSup struct {
	wf        *team.Workflow
	statusDir string
	leads     []*leadProc // by role name
	follow    context.CancelFunc
	wg        sync.WaitGroup
}

// leadProc is one role's Lead process and its supervision state. It
// belongs to the goroutine that supervises the Leads: serve's, which
// starts them (startTeam) and stops them (stopTeam), and the liveness
// loop's in between (superviseTeam). Its lease (held) is a record of
// the state loop's register, which only a request changes; the status
// files and the processes are read, written and signalled outside the
// state loop.
type leadProc struct {
	role      string
	cmd       *exec.Cmd
	tree      *proc.Tree    // the Lead and everything it starts
	done      chan struct{} // closed when cmd has exited
	held      *heal.Held
	restarts  heal.Restarts
	started   time.Time
	restartAt time.Time // when a restart is due; zero when none is
	gaveUp    bool
	health    string
	// hung: the controller killed it as STALE (its exit says LEAD_HUNG,
	// not the signal it died of); stderr is the file it writes to.
	hung   bool
	stderr *os.File
	// outboxRefused: it last died because the outbox database was
	// missing, empty or corrupt; once daokit outbox init (or a restore)
	// makes it sound again, a Lead the restart bound gave up on is
	// started afresh.
	outboxRefused bool
}

// startTeam starts a Lead per role when the root has a workflow.toml.
func (c *Controller) startTeam() {
	dir := c.cfg.Team.OutboxDir(c.opts.Root)
	if !team.Exists(dir) {
		return
	}
	wf, err := team.Load(dir)
	if err == nil {
		err = wf.CheckHardCaps(c.cfg.Team.RoleMaxConcurrent, "daokit.toml")
	}
	if err != nil {
		c.log.Error("team not started", "err", err)
		c.recordTeam(c.events.system(globalID, globalID, "", ledger.SeverityError, opLeadExited, "reason_code", string(vocab.ReasonWorkflowInvalid), "error", err.Error()))
		return
	}
	s := &teamSup{wf: wf, statusDir: roster.StatusDir(wf)}
	for _, role := range wf.Names {
		s.leads = append(s.leads, &leadProc{role: role})
	}
	c.do(func(st *loopState) {
		st.team = s
	})
	for _, lp := range s.leads {
		c.startLead(s, lp)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.follow = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.followOutbox(ctx, wf)
	}()
}

func (c *Controller) recordTeam(events ...ledger.Event) {
	if len(events) == 0 {
		return
	}
	if err := c.journal.append(events...); err != nil {
		c.log.Error("record team event", "err", err)
	}
}

// startLead starts role's Lead and takes out its lease.
func (c *Controller) startLead(s *teamSup, lp *leadProc) {
	cmd := exec.Command(c.opts.Self, "lead", "--role", lp.role, "--root", c.opts.Root)
	cmd.Env = append(os.Environ(), "DAOKIT_ROOT="+c.opts.Root, "DAOKIT_TASK_ID="+teamTask, "DAOKIT_LANG="+c.opts.Lang)
	cmd.SysProcAttr = leadSysProcAttr()
	// The Lead's stderr goes to a file of its own, emptied at each start:
	// its last line is the error of a Lead that dies without an Exit
	// record of its own (see leadExit).
	statusDir := s.statusDir
	if err := os.MkdirAll(statusDir, 0o755); err == nil {
		if f, err := os.Create(roster.StderrPath(statusDir, lp.role)); err == nil {
			cmd.Stderr = f
			lp.stderr = f
		}
	}
	now := c.now()
	tree, err := proc.Start(proc.WithStep(proc.WithScope(context.Background(), c.procs), "lead-"+lp.role), cmd)
	if lp.stderr != nil {
		// The child holds its own copy; ours is not needed past the start.
		lp.stderr.Close()
		lp.stderr = nil
	}
	if err != nil {
		_ = roster.WriteExit(statusDir, roster.Exit{Role: lp.role, Reason: roster.ExitStartFailed, Detail: err.Error(), Time: now,
			Restarts: lp.restarts.Count()})
		c.recordTeam(c.events.system(teamTask, leadLane(lp.role), lp.role, ledger.SeverityError, opLeadExited,
			"role", lp.role, "reason_code", roster.ExitStartFailed, "error", err.Error()))
		c.recordTeam(c.scheduleRestart(lp, now)...)
		return
	}
	done := make(chan struct{})
	go func() {
		// Nothing the Lead started outlives it.
		if proc.WaitExited(tree.PID()) == nil {
			tree.Kill()
		}
		_ = cmd.Wait()
		tree.Release()
		close(done)
	}()
	lp.tree = tree
	lp.cmd, lp.done, lp.started, lp.restartAt, lp.health, lp.hung = cmd, done, now, time.Time{}, heal.HealthActive, false
	c.do(func(st *loopState) {
		h, err := heal.Hold(&st.leases, heal.LeaseSpec{Lane: leadLane(lp.role), TaskID: teamTask, RunID: leadLane(lp.role), StepID: lp.role,
			Holder: heal.Holder{ThreadID: leadLane(lp.role), PID: cmd.Process.Pid}, TTL: c.leaseTTL()}, now)
		if err == nil {
			lp.held = h
			c.writeLeases(st)
		}
	})
	c.recordTeam(c.events.system(teamTask, leadLane(lp.role), lp.role, ledger.SeverityInfo, opLeadStarted,
		"role", lp.role, "pid", cmd.Process.Pid))
	c.flushDocs()
}

// scheduleRestart plans the next start of a Lead that ended, with
// backoff, or gives up once the restart policy's bound is reached.
func (c *Controller) scheduleRestart(lp *leadProc, now time.Time) []ledger.Event {
	delay, ok := lp.restarts.Next(c.restartPolicy(), now, nil)
	if !ok {
		lp.gaveUp = true
		return []ledger.Event{c.events.system(teamTask, leadLane(lp.role), lp.role, ledger.SeverityError,
			opLeadRestartLimit, "role", lp.role, "reason_code", ReasonRestartLimit, "restarts", lp.restarts.Count())}
	}
	lp.restartAt = now.Add(delay)
	return nil
}

// superviseTeam is the Leads' share of a liveness pass: notice exits,
// judge heartbeats, renew leases and start what is due.
func (c *Controller) superviseTeam() {
	s := c.teamOf()
	if s == nil {
		return
	}
	now := c.now()
	var due []*leadProc
	var events []ledger.Event
	var released, renewed []*heal.Held
	for _, lp := range s.leads {
		switch {
		case lp.cmd != nil && exited(lp.done):
			code := lp.cmd.ProcessState.ExitCode()
			ex := c.leadExit(s, lp, now)
			events = append(events, c.events.system(teamTask, leadLane(lp.role), lp.role, ledger.SeverityWarn, opLeadExited,
				"role", lp.role, "pid", lp.cmd.Process.Pid, "exit_code", code, "health", lp.health,
				"reason_code", ex.Reason, "error", ex.Detail))
			if lp.held != nil {
				released = append(released, lp.held)
				lp.held = nil
			}
			lp.cmd = nil
			lp.outboxRefused = strings.HasPrefix(ex.Reason, "OUTBOX_")
			restart := c.scheduleRestart(lp, now)
			if lp.gaveUp {
				ex.GaveUp = true
			}
			_ = roster.WriteExit(s.statusDir, ex)
			events = append(events, restart...)
		case lp.cmd != nil:
			c.judgeLead(s, lp, now, &events)
			if lp.held != nil {
				renewed = append(renewed, lp.held)
			}
		case !lp.gaveUp && !lp.restartAt.IsZero() && !now.Before(lp.restartAt):
			due = append(due, lp)
		case lp.gaveUp && lp.outboxRefused && outbox.Check(s.wf.DBPath()) == nil:
			// The outbox it died for is sound again: not a crash loop.
			lp.gaveUp, lp.outboxRefused, lp.restarts = false, false, heal.Restarts{}
			due = append(due, lp)
		}
	}
	c.leadLeases(released, renewed, now)
	c.recordTeam(events...)
	for _, lp := range due {
		c.startLead(s, lp)
	}
	c.flushDocs()
}

// teamOf returns the Leads' supervision, nil without a team.
func (c *Controller) teamOf() (s *teamSup) {
	c.do(func(st *loopState) { s = st.team })
	return s
}

// leadLeases releases and renews the Leads' leases in the register, in
// one request: what a supervision pass decided about them outside the
// state loop.
func (c *Controller) leadLeases(released, renewed []*heal.Held, now time.Time) {
	if len(released) == 0 && len(renewed) == 0 {
		return
	}
	c.do(func(st *loopState) {
		changed := false
		for _, h := range released {
			_ = h.Release(&st.leases, now)
			changed = true
		}
		for _, h := range renewed {
			changed = h.Renew(&st.leases, now) == nil || changed
		}
		if changed {
			c.writeLeases(st)
		}
	})
}

func exited(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// judgeLead reads the Lead's status file, its heartbeat: silent
// past warning_after is WARNING (observed), past stale_after STALE: the
// Lead is killed and, like any exit, restarted with backoff.
func (c *Controller) judgeLead(s *teamSup, lp *leadProc, now time.Time, events *[]ledger.Event) {
	last := lp.started
	if st, err := roster.ReadStatus(s.statusDir, lp.role); err == nil && st.PID == lp.cmd.Process.Pid && st.Time.After(last) {
		last = st.Time
	}
	silent := now.Sub(last)
	health := heal.HealthActive
	switch {
	case silent >= c.cfg.Heartbeat.StaleAfter.Std():
		health = heal.HealthStale
	case silent >= c.cfg.Heartbeat.WarningAfter.Std():
		health = heal.HealthWarning
	}
	if health == lp.health {
		return
	}
	lp.health = health
	switch health {
	case heal.HealthWarning:
		*events = append(*events, c.events.typed(teamTask, leadLane(lp.role), lp.role, ledger.EventHeartbeatWarning, ledger.SeverityWarn,
			"role", lp.role, "silent_seconds", silent.Seconds()))
	case heal.HealthStale:
		*events = append(*events, c.events.typed(teamTask, leadLane(lp.role), lp.role, ledger.EventHeartbeatStale, ledger.SeverityError,
			"role", lp.role, "silent_seconds", silent.Seconds(), "reason_code", roster.ExitHung))
		lp.hung = true
		lp.tree.Kill()
	}
}

// stopTeam stops every Lead (SIGTERM: a Lead stops its Workers) and the
// outbox follower; it waits for the Leads to exit, killing any that take
// longer than the stop grace.
func (c *Controller) stopTeam() {
	s := c.teamOf()
	if s == nil {
		return
	}
	s.follow()
	s.wg.Wait()
	now := c.now()
	for _, lp := range s.leads {
		if lp.cmd == nil {
			continue
		}
		lp.tree.Signal(syscall.SIGTERM)
		t := time.NewTimer(leadStopGrace)
		select {
		case <-lp.done:
		case <-t.C:
			lp.tree.Kill()
			<-lp.done
		}
		t.Stop()
		if lp.held != nil {
			c.leadLeases([]*heal.Held{lp.held}, nil, now)
		}
		ex := c.leadExit(s, lp, now)
		if ex.Reason == roster.ExitSignal || ex.Reason == roster.ExitNonzero || ex.Reason == roster.ExitStopped {
			// Our SIGTERM (or the kill after the grace): a stop, not a death.
			ex.Reason, ex.Detail, ex.Signal = roster.ExitStopped, "", ""
		}
		_ = roster.WriteExit(s.statusDir, ex)
	}
}

// leadExit is why lp's Lead process (which has exited) ended: its own
// Exit record when it wrote one (an outbox it refused, an error), with
// the exit status added; else what the controller knows: it killed a hung
// Lead, a signal it did not send, or a non-zero exit with the last line
// the Lead wrote to stderr.
func (c *Controller) leadExit(s *teamSup, lp *leadProc, now time.Time) roster.Exit {
	pid := lp.cmd.Process.Pid
	ex := roster.Exit{Role: lp.role, PID: pid, Time: now, Restarts: lp.restarts.Count()}
	if st := lp.cmd.ProcessState; st != nil {
		ex.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = ws.Signal().String()
		}
	}
	own, err := roster.ReadExit(s.statusDir, lp.role)
	switch {
	case lp.hung:
		ex.Reason = roster.ExitHung
	case err == nil && own.PID == pid && own.Reason != "":
		ex.Reason, ex.Detail = own.Reason, own.Detail
	case ex.Signal != "":
		ex.Reason = roster.ExitSignal
	case ex.ExitCode != 0:
		ex.Reason, ex.Detail = roster.ExitNonzero, lastLine(roster.StderrPath(s.statusDir, lp.role))
	default:
		ex.Reason = roster.ExitStopped
	}
	return ex
}

// lastLine is the last non-blank line of the end of a file ("" when
// there is none), at most 512 bytes of it.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 4096
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		_, _ = f.Seek(-tail, io.SeekEnd)
	}
	data, _ := io.ReadAll(io.LimitReader(f, tail))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 512 {
		last = last[:512]
	}
	return last
}

// leadStopGrace bounds a Lead's clean stop.
const leadStopGrace = 5 * time.Second

// teamActive reports whether Leads run (a resident team keeps the
// controller from its idle exit).
func (c *Controller) teamActive() bool {
	return c.teamOf() != nil
}

// followOutbox mirrors the outbox's new events into the ledger as
// OUTBOX_EVENT system events (from the head at start: history stays in
// the outbox), woken by the outbox's change notification.
func (c *Controller) followOutbox(ctx context.Context, wf *team.Workflow) {
	// pause waits a second after a failed read (a busy or locked
	// database), so that a lasting failure is logged once a second
	// instead of spinning; it reports whether to go on.
	pause := func(what string, err error) bool {
		return c.pauseFollow(ctx, what, err, time.Second)
	}
	// A missing, emptied or corrupt outbox is refused, never made anew
	// (daokit outbox init does that); the Leads die saying why, and the
	// follower waits for the outbox to be there, re-checking every
	// second at first, then every 30 s.
	var ob outbox.Backend
	for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
		var err error
		if ob, err = pick.Open(ctx, wf, "", outbox.Options{ReadOnly: true}); err == nil {
			break
		}
		if !c.pauseFollow(ctx, "follow the outbox", err, delay) {
			return
		}
	}
	defer ob.Close()
	after, _ := ob.Head(ctx)
	for ctx.Err() == nil {
		if err := ob.Wait(ctx, after); err != nil && !pause("outbox wait", err) {
			return
		}
		evs, err := ob.Events(ctx, after, 500)
		if err != nil {
			if !pause("read outbox events", err) {
				return
			}
			continue
		}
		var out []ledger.Event
		for _, e := range evs {
			after = e.ID
			out = append(out, c.events.system(teamTask, "outbox", "", ledger.SeverityInfo, opOutboxEvent,
				"outbox_event_id", e.ID, "kind", string(e.Kind), "issue", e.Issue, "actor", e.Actor, "value", e.Value,
				"message", outboxSummary(e)))
		}
		if len(out) > 0 {
			c.recordTeam(out...)
		}
	}
}

// pauseFollow logs why the outbox follower waits, then waits d (a busy
// or locked database, an outbox not there yet), so that a lasting
// failure never spins; it reports whether to go on.
func (c *Controller) pauseFollow(ctx context.Context, what string, err error, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	c.log.Warn(what, "err", err)
	return backoff.Sleep(ctx, d)
}

// outboxSummary is a one-line description of an outbox event for the
// event pane: "#3 commented by lead:qa".
func outboxSummary(e outbox.Event) string {
	s := "#" + strconv.FormatInt(e.Issue, 10) + " " + string(e.Kind)
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + " (" + e.Actor + ")"
}

// Errors of /issue.
const (
	// codeNoTeam: /issue on a root without a workflow.toml.
	codeNoTeam = relay.Code(vocab.ResultNoTeam)
	// codeBadIssue: /issue without a known role and a title (Detail: the
	// roles there are).
	codeBadIssue = relay.Code(vocab.ResultBadIssue)
	// codeOutbox: the outbox could not be written (Detail: why).
	codeOutbox = relay.Code(vocab.ResultOutbox)
)

// opIssueFiled records an issue the person filed from the window.
const opIssueFiled = string(vocab.OpIssueFiled)

// fileIssue files "/issue ROLE TITLE…" from a window in the outbox, for
// the person (the window never writes the outbox itself). The request id
// is the change's Trigger and the event's dedup key, so a resend after a
// reconnect files nothing twice.
func (c *Controller) fileIssue(req relay.Request, ctl relay.Control) (relay.Ack, error) {
	dir := c.cfg.Team.OutboxDir(c.opts.Root)
	if !team.Exists(dir) {
		return relay.Ack{}, &relay.Error{Code: codeNoTeam, Detail: dir}
	}
	wf, err := team.Load(dir)
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeNoTeam, Detail: err.Error()}
	}
	role, title, _ := strings.Cut(strings.TrimSpace(ctl.Reason), " ")
	title = strings.TrimSpace(title)
	if _, ok := wf.Roles[role]; !ok || title == "" {
		return relay.Ack{}, &relay.Error{Code: codeBadIssue, Detail: strings.Join(wf.Names, ", ")}
	}
	ob, err := pick.Open(context.Background(), wf, pick.Token(wf, os.Getenv), outbox.Options{})
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeOutbox, Detail: err.Error()}
	}
	defer ob.Close()
	res, err := ob.Apply(context.Background(), outbox.Change{Actor: "person", Reader: "window", Trigger: "relay:" + req.ID,
		Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: title, Labels: []string{roster.To(role)}}}})
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeOutbox, Detail: err.Error()}
	}
	var issue int64
	if len(res.Issues) > 0 {
		issue = res.Issues[0]
	}
	e := c.events.system(teamTask, "outbox", "", ledger.SeverityInfo, opIssueFiled,
		"message_id", req.ID, "issue", issue, "role", role, "message", "#"+strconv.FormatInt(issue, 10)+" "+title)
	e.DedupKey = dedupControl + req.ID
	if err := c.journal.append(e); err != nil {
		return relay.Ack{}, &relay.Error{Code: codeLedgerWrite, Detail: ledger.EventsFile}
	}
	return relay.Ack{EventID: e.EventID, Duplicate: res.Duplicate}, nil
}
