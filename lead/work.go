package lead

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

func sortIDs(ids []int64) { slices.Sort(ids) }

func isNotFound(err error) bool { return errors.Is(err, outbox.ErrNotFound) }

// enqueue appends a claimed issue to the queue (oldest first).
func (l *Lead) enqueue(id int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.blocked, id)
	if _, restarting := l.pending[id]; !slices.Contains(l.queued, id) && l.running[id] == nil && !restarting {
		l.queued = append(l.queued, id)
	}
}

// block records what blocks id, takes it out of the queue and stops its
// Worker (seed 003: a blocked issue burns no Worker).
func (l *Lead) block(id int64, deps []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.blocked[id] = deps
	l.queued = slices.DeleteFunc(l.queued, func(x int64) bool { return x == id })
	delete(l.pending, id)
	if w := l.running[id]; w != nil {
		w.blocked = true
		w.proc.Cancel()
	}
}

func (l *Lead) unblock(id int64) {
	l.mu.Lock()
	delete(l.blocked, id)
	l.mu.Unlock()
	l.enqueue(id)
}

// dispatch starts Workers for the oldest queued issues while fewer than
// the limit run; an issue whose dependencies are open is blocked instead.
func (l *Lead) dispatch(ctx context.Context) error {
	for {
		l.mu.Lock()
		if len(l.running)+len(l.pending) >= l.limit || len(l.queued) == 0 {
			l.mu.Unlock()
			return nil
		}
		id := l.queued[0]
		l.mu.Unlock()
		is, err := l.ob.Issue(ctx, id)
		if err != nil {
			return err
		}
		if is.Closed || is.Assignee != l.actor {
			l.dequeue(id)
			continue
		}
		implicit, err := l.implicitDeps(ctx, is)
		if err != nil {
			return err
		}
		unmet, err := l.openOf(ctx, append(explicitDeps(is), implicit...))
		if err != nil {
			return err
		}
		if len(unmet) > 0 {
			if _, err := l.ob.Apply(ctx, outbox.Change{Actor: l.actor, Ops: l.blockOps(id, unmet, 0)}); err != nil {
				return err
			}
			l.block(id, unmet)
			continue
		}
		res, err := l.ob.Apply(ctx, outbox.Change{Actor: l.actor, Limits: l.groupLimits, Ops: []outbox.Op{
			{Kind: outbox.OpUnlabel, Issue: id, Labels: []string{roster.LabelQueued}},
			{Kind: outbox.OpLabel, Issue: id, Labels: []string{roster.LabelRunning}},
		}})
		if err != nil {
			return err
		}
		if res.OverLimit {
			// A group this role shares is full with other roles' Workers:
			// the issue stays queued, and the Lead tries again when the
			// outbox changes (their Workers end with an event).
			l.mu.Lock()
			l.capped = true
			l.mu.Unlock()
			return nil
		}
		l.mu.Lock()
		l.capped = false
		l.mu.Unlock()
		l.dequeue(id)
		if err := l.startWorker(ctx, is); err != nil {
			res := workerResult{issue: id, err: err}
			if err := l.finish(ctx, res); err != nil {
				return err
			}
		}
	}
}

func (l *Lead) dequeue(id int64) {
	l.mu.Lock()
	l.queued = slices.DeleteFunc(l.queued, func(x int64) bool { return x == id })
	l.mu.Unlock()
}

// finish handles a Worker attempt's end: stopped because its issue was
// blocked or because the Lead stops, nothing (the block comment said it;
// the next Lead runs it again); stopped as STALE, a restart within the
// [restart] bounds, else the issue fails; otherwise its result is posted
// (post).
func (l *Lead) finish(ctx context.Context, res workerResult) error {
	l.mu.Lock()
	w := l.running[res.issue]
	if w != nil && w.attempt == res.attempt {
		delete(l.running, res.issue)
	} else {
		w = nil
	}
	wasBlocked := w != nil && w.blocked
	l.mu.Unlock()
	switch {
	case wasBlocked, res.stopped == transcript.StopCancelled:
		return nil
	case res.stopped == transcript.StopHung:
		l.mu.Lock()
		delay, n, ok := l.restartDelay(res.issue, time.Now())
		if ok {
			l.pending[res.issue] = restart{at: time.Now().Add(delay), attempt: res.attempt}
		}
		l.mu.Unlock()
		if ok {
			return nil
		}
		res.err = fmt.Errorf("it was silent past %s (STALE) %d times; the restart limit ([restart] max_restarts) is reached", l.live.StaleAfter, n+1)
		res.hung = true
	}
	_, err := l.post(ctx, res)
	return err
}

// workerTrigger is the Trigger key under which the Lead posts a Worker
// attempt's result: posted twice (by a Lead that read it back from the
// attempt's result.json after its predecessor had posted it), the second
// does nothing.
func workerTrigger(issue int64, attempt int) string {
	return "worker:" + strconv.FormatInt(issue, 10) + ":" + strconv.Itoa(attempt)
}

// post posts a Worker's evidence in the mailbox template and moves the
// issue on: closed when done, blocked on what the Worker reported,
// decision:needed on a breaking interface change, failed otherwise.
// dup reports that this attempt's result had been posted already.
func (l *Lead) post(ctx context.Context, res workerResult) (dup bool, err error) {
	ev := res.evidence
	f := map[string]string{
		outbox.FieldIssueRef:  fmt.Sprintf("#%d", res.issue),
		outbox.FieldChanges:   orNA(ev[outbox.FieldChanges]),
		outbox.FieldTests:     orNA(ev[outbox.FieldTests]),
		outbox.FieldBlockedBy: ev[outbox.FieldBlockedBy],
	}
	unlabel := []string{roster.LabelRunning}
	var ops []outbox.Op
	var text string
	var blockedBy, acceptable []int64
	selfBlocked := false
	if b := ev[outbox.FieldBlockedBy]; b != "" && res.err == nil {
		var refused bool
		acceptable, refused = l.acceptableDeps(res.issue, outbox.IssueRefs(b))
		selfBlocked = refused && len(acceptable) == 0
	}
	switch {
	case res.err != nil && res.hung:
		text = fmt.Sprintf("The Worker for #%d was stopped: %v.", res.issue, res.err)
		f[outbox.FieldState] = roster.LabelFailed
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelFailed}})
	case res.err != nil:
		text = fmt.Sprintf("The Worker for #%d could not start: %v", res.issue, res.err)
		f[outbox.FieldState] = roster.LabelFailed
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelFailed}})
	case ev[outbox.FieldBreaking] != "":
		text = fmt.Sprintf("The Worker proposes a breaking interface change (%s): not merged; a decision is needed (contracts + Accepted Gate).", ev[outbox.FieldBreaking])
		f[outbox.FieldBreaking], f[outbox.FieldState] = ev[outbox.FieldBreaking], roster.LabelReview
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelNeeded, roster.LabelReview}})
	case selfBlocked:
		// Blocked by itself (or by what waits for it) is blocked forever:
		// refused, and the issue fails so that a person sees it.
		text = fmt.Sprintf("Refused: the Worker reported #%d blocked by itself (%s); an issue cannot wait for itself. It failed instead.",
			res.issue, ev[outbox.FieldBlockedBy])
		f[outbox.FieldState], f[outbox.FieldBlockedBy] = roster.LabelFailed, ""
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelFailed}})
	case ev[outbox.FieldBlockedBy] != "":
		blockedBy = acceptable
		text = fmt.Sprintf("The Worker stopped: blocked by %s.", ev[outbox.FieldBlockedBy])
		if len(blockedBy) > 0 {
			f[outbox.FieldBlockedBy] = outbox.FormatRefs(blockedBy)
		}
		f[outbox.FieldState] = roster.LabelBlocked
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelBlocked}})
	case succeeded(res):
		text = fmt.Sprintf("Done: the Worker finished #%d.", res.issue)
		f[outbox.FieldState] = roster.LabelDone
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelDone}},
			outbox.Op{Kind: outbox.OpClose, Issue: res.issue})
	default:
		text = fmt.Sprintf("The Worker for #%d failed (exit %d).", res.issue, res.exit)
		if _, said := workerState(ev); said && res.fromRecord {
			text = fmt.Sprintf("The Worker for #%d failed (its result line says State: %s).", res.issue, ev[outbox.FieldState])
		}
		f[outbox.FieldState] = roster.LabelFailed
		ops = append(ops, outbox.Op{Kind: outbox.OpLabel, Issue: res.issue, Labels: []string{roster.LabelFailed}})
	}
	if said := (outbox.Mailbox{Invalid: res.invalid}).NotTaken(); said != "" {
		text += "\n" + notTaken + "\n" + said
	}
	if res.loopNote != "" {
		text += "\n" + res.loopNote
	}
	if res.attempt > 0 {
		text += "\n" + l.attemptNote(res)
	}
	body := outbox.Mailbox{Text: text, Fields: f}.Render()
	ops = append([]outbox.Op{{Kind: outbox.OpUnlabel, Issue: res.issue, Labels: unlabel},
		{Kind: outbox.OpComment, Issue: res.issue, Body: body}}, ops...)
	ch := outbox.Change{Actor: l.actor, Ops: ops}
	if res.attempt > 0 {
		ch.Reader, ch.Trigger = l.actor, workerTrigger(res.issue, res.attempt)
	}
	r, err := l.ob.Apply(ctx, ch)
	if err != nil {
		return false, err
	}
	if r.Duplicate {
		return true, nil
	}
	if len(blockedBy) > 0 {
		l.mu.Lock()
		l.blocked[res.issue] = blockedBy
		l.mu.Unlock()
	}
	return false, nil
}

// attemptNote says which attempt the result is, where its logs are, and
// what an agent said its session and cost were.
func (l *Lead) attemptNote(res workerResult) string {
	s := fmt.Sprintf("Attempt %d; logs: daokit logs --role %s --issue %d --attempt %d", res.attempt, l.o.Role, res.issue, res.attempt)
	if res.fromRecord {
		s += " (read back from its result record after the Lead restarted)"
	}
	if res.tree != "" {
		s += "; its work is on branch " + roster.WorktreeBranch(l.o.Role, res.issue)
		if res.commit != "" {
			s += " (committed " + shortCommit(res.commit) + ")"
		}
	}
	if res.session != "" {
		s += "; session " + res.session
	}
	if u := res.usage; u != nil {
		s += fmt.Sprintf("; %d tokens in, %d out, $%.4f", u.InputTokens, u.OutputTokens, u.CostUSD)
	}
	return s
}

func orNA(s string) string {
	if strings.TrimSpace(s) == "" {
		return "n/a"
	}
	return s
}

// Recover rebuilds the Lead's bookkeeping from the outbox after a start
// or a crash: a Worker that was running died with the old Lead, so its
// issue is queued again; blocked issues get their blockers back from the
// Lead's last block comment and are queued if those have closed.
func (l *Lead) Recover(ctx context.Context) error {
	mine, err := l.ob.List(ctx, outbox.Query{Assignee: l.actor, State: "open"})
	if err != nil {
		return err
	}
	for _, is := range mine {
		switch {
		case is.HasLabel(roster.LabelRunning):
			posted, err := l.recoverResult(ctx, is.ID)
			if err != nil {
				return err
			}
			if posted {
				continue
			}
			m := outbox.Mailbox{Text: fmt.Sprintf("Requeued: the Lead restarted while a Worker ran #%d.", is.ID),
				Fields: map[string]string{outbox.FieldState: roster.LabelQueued}}
			if _, err := l.ob.Apply(ctx, outbox.Change{Actor: l.actor, Ops: []outbox.Op{
				{Kind: outbox.OpUnlabel, Issue: is.ID, Labels: []string{roster.LabelRunning}},
				{Kind: outbox.OpLabel, Issue: is.ID, Labels: []string{roster.LabelQueued}},
				{Kind: outbox.OpComment, Issue: is.ID, Body: m.Render()},
			}}); err != nil {
				return err
			}
			l.enqueue(is.ID)
		case is.HasLabel(roster.LabelQueued):
			l.enqueue(is.ID)
		case is.HasLabel(roster.LabelBlocked):
			deps, err := l.lastBlockers(ctx, is.ID)
			if err != nil {
				return err
			}
			l.mu.Lock()
			l.blocked[is.ID] = deps
			l.mu.Unlock()
		}
	}
	// A blocker that closed while no Lead ran: its event may be behind
	// the cursor already, so check now.
	if ch, err := l.onClosed(ctx, outbox.Event{}); err != nil {
		return err
	} else if ch != nil {
		if _, err := l.ob.Apply(ctx, outbox.Change{Actor: l.actor, Ops: ch.change.Ops}); err != nil {
			return err
		}
		ch.after()
	}
	return nil
}

// recoverResult posts the result of issue's last Worker attempt when
// that Worker had exited on its own before the previous Lead died
// (result.json is written before anything is posted): the Worker is not
// run again. posted is false when there is no such result, or when it had
// been posted already (the issue was then sent to a Worker again, whose
// attempt left nothing): the issue is queued again.
func (l *Lead) recoverResult(ctx context.Context, issue int64) (posted bool, err error) {
	atts, err := roster.Attempts(l.logRoot, l.o.Role, issue)
	if err != nil || len(atts) == 0 {
		return false, err
	}
	last := atts[len(atts)-1]
	spec := worker.Spec{Kind: l.kind(), ArtifactDir: roster.AttemptDir(l.logRoot, l.o.Role, issue, last), ArtifactRoot: l.logRoot}
	rec, err := readAttemptResult(spec.ArtifactDir)
	if err != nil && l.role.Loop != nil {
		// A loop that left no result goes on in this attempt, without
		// its finished steps (startLoop).
		return false, nil
	}
	if err != nil {
		// No exit recorded: the Worker was stopped, or died with its Lead
		// (or just after it exited, before the Lead heard of it). Its own
		// result line in its log still says it finished.
		res, ok := resultFromLog(spec, issue, last)
		if !ok {
			return false, nil // the Worker runs again
		}
		res.tree = l.issueTree(issue)
		res.commit = l.commitWork(issue, last, res.tree)
		dup, err := l.post(ctx, res)
		return err == nil && !dup, err
	}
	res := workerResult{issue: issue, attempt: last, exit: rec.ExitCode, signal: rec.Signal, evidence: rec.Evidence, invalid: rec.Invalid,
		session: rec.SessionID, usage: rec.Usage, fromRecord: true, loopNote: rec.Loop}
	if res.evidence == nil {
		// Recorded as it exited, before its Lead read its output: what it
		// printed is read back from its stdout log.
		m, summary, err := readEvidence(spec)
		if err != nil {
			return false, nil // unreadable logs: the Worker runs again
		}
		res.evidence, res.invalid, res.session, res.usage = m.Fields, m.Invalid, summary.SessionID, usageOf(summary)
	}
	res.tree, res.commit = l.issueTree(issue), rec.Commit
	if rec.Evidence == nil {
		// Its Lead died before it committed the Worker's work.
		res.commit = l.commitWork(issue, last, res.tree)
	}
	dup, err := l.post(ctx, res)
	return err == nil && !dup, err
}

// lastBlockers reads BlockedBy from the Lead's newest comment on id.
func (l *Lead) lastBlockers(ctx context.Context, id int64) ([]int64, error) {
	cs, err := l.ob.Comments(ctx, id)
	if err != nil {
		return nil, err
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Author != l.actor {
			continue
		}
		if b := outbox.ParseMailbox(cs[i].Body).Fields[outbox.FieldBlockedBy]; b != "" {
			return outbox.IssueRefs(b), nil
		}
	}
	return nil, nil
}

// shortCommit is a commit id as git abbreviates it by default.
func shortCommit(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}
