package lead

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/worker/transcript"
)

// Options configure a Lead.
type Options struct {
	Role     string
	Workflow *team.Workflow
	// HardCap is daokit.toml's role_max_concurrent for the role.
	HardCap int
	Backend outbox.Backend
	// WorkerArgv is the default Worker command line (the simulated role
	// worker) for roles whose workflow.toml names none.
	WorkerArgv []string
	// SimAgentArgv is the command line of a loop lane whose workflow.toml
	// names no worker (the simulated agent): the role worker's
	// placeholders and PlaceholderLaneRole.
	SimAgentArgv []string
	// Guard, when non-empty, is the command line prefix that runs a
	// Worker with the outbox and memory read-only (see GuardArgv).
	Guard []string
	// StatusDir receives <role>.json after every pass (the heartbeat the
	// controller and the window read). Empty: no status file.
	StatusDir string
	// Beat is the most often an unchanged status is written again (0:
	// after every pass): the outbox's wake interval (WakeFor), so that
	// its age stays within half the warning_after it is judged by, while
	// a Lead answering a burst of events writes it once a beat, not once
	// an event.
	Beat time.Duration
	// Page is how many events one read takes (default 1000).
	Page int
	// OnEffect, if set, is called after each committed effect, with the
	// event it answered (for the latency benchmark and tests).
	OnEffect func(ev outbox.Event)
	// Liveness bounds a Worker's silence and its restarts (daokit.toml's
	// [heartbeat] and [restart]: LivenessOf); zero: their defaults.
	Liveness Liveness
	// OnSettled, if set, is called once, after the first pass: the Lead
	// has recovered and read the outbox up to its head, and the code it
	// ran only to get there is behind it (the daokit lead command gives
	// that memory back then, see memtrim.Settle).
	OnSettled func()
}

// Lead is one role's Lead. Run it with Run; Step is one pass for tests.
type Lead struct {
	o      Options
	actor  string
	role   team.Role
	limit  int
	cursor int64
	// saved is the cursor as the outbox keeps it: moved with every
	// effect, but past events that need nothing from the Lead only now
	// and then (flushCursor), so that ten Leads do not each write for
	// every event; lastRead is when the Lead last read one.
	saved    int64
	lastRead time.Time
	ob       outbox.Backend

	mu      sync.Mutex
	running map[int64]*workerRun
	// queued holds claimed issues waiting for a Worker slot, oldest
	// first; blocked maps an issue to what blocks it.
	queued  []int64
	blocked map[int64][]int64
	// toMe caches whether an issue is addressed to the role (Step's
	// goroutine only).
	toMe map[int64]bool
	// results are the Workers' ends waiting for the loop, which
	// resultCh wakes; pending are hung Workers' issues waiting for their
	// restart (issue → when), restarts their restarts within the window.
	results  []workerResult
	resultCh chan struct{}
	pending  map[int64]restart
	restarts map[int64][]time.Time
	live     Liveness
	// logRoot holds the Workers' attempts (see AttemptDir); gitMu keeps
	// one git at a time on the role's repository.
	logRoot string
	gitMu   sync.Mutex
	wg      sync.WaitGroup
	// groupLimits are the caps this role shares with other roles
	// (team.SharedGroups), checked in the transaction that marks an issue
	// running; capped: the last start waited for one of them.
	groupLimits []outbox.Limit
	capped      bool
	// memory caches the parsed memory files (Run's goroutine only);
	// memoryFiles are the decisions given to the role, newest first, and
	// memoryDirty says an event may have changed them.
	memory      memoryCache
	memoryFiles []string
	memoryDirty bool
	// memoryWriter is the actor of the Lead that records decisions ("":
	// none may): its comment says a memory file was written.
	memoryWriter string
	// statusSaid is the last status written (without its time), at
	// statusAt (Run's goroutine only).
	statusSaid *roster.Status
	statusAt   time.Time
	// unfinished are Worker results whose write-back GitHub's rate limit
	// held up (Run's goroutine only), retried oldest first.
	unfinished []workerResult
}

// rateLimited: the outbox (GitHub) asked to wait longer than a pass may
// block; the pass ends, the Lead keeps beating and showing the wait
// (roster.Status.RateWait), and the next pass retries what did not happen:
// the events stay past the cursor.
func rateLimited(err error) bool { return errors.Is(err, outbox.ErrRateLimited) }

// New checks the options and reads the Lead's cursor.
func New(ctx context.Context, o Options) (*Lead, error) {
	r, ok := o.Workflow.Roles[o.Role]
	if !ok {
		return nil, fmt.Errorf("lead: no role %q in %s", o.Role, filepath.Join(o.Workflow.Dir, team.FileName))
	}
	if o.Page <= 0 {
		o.Page = 1000
	}
	if o.HardCap <= 0 {
		o.HardCap = 1
	}
	l := &Lead{o: o, actor: roster.Actor(o.Role), role: r, limit: o.Workflow.Limit(o.Role, o.HardCap), ob: o.Backend,
		running: map[int64]*workerRun{}, blocked: map[int64][]int64{}, toMe: map[int64]bool{}, resultCh: make(chan struct{}, 1),
		pending: map[int64]restart{}, restarts: map[int64][]time.Time{}, live: o.Liveness.withDefaults(),
		logRoot: o.StatusDir, memory: memoryCache{}}
	if l.logRoot == "" {
		l.logRoot = roster.StatusDir(o.Workflow)
	}
	if w := memoryWriter(o.Workflow); w != "" {
		l.memoryWriter = roster.Actor(w)
	}
	for _, g := range o.Workflow.SharedGroups(o.Role) {
		lim := outbox.Limit{Label: roster.LabelRunning, Max: g.MaxConcurrent}
		for _, r := range g.Roles {
			lim.Assignees = append(lim.Assignees, roster.Actor(r))
		}
		l.groupLimits = append(l.groupLimits, lim)
	}
	c, err := l.ob.Cursor(ctx, l.actor)
	if err != nil {
		return nil, err
	}
	l.cursor, l.saved = c, c
	return l, nil
}

// Run recovers the Lead's claimed work, then handles events as they
// arrive and dispatches Workers until ctx ends; it stops its Workers
// before it returns.
func (l *Lead) Run(ctx context.Context) error {
	// Where cgroups cannot track a Worker's tree, its descendants that
	// leave their group still become the Lead's when their parent dies.
	proc.BecomeSubreaper()
	defer l.shutdown()
	if err := l.Recover(ctx); err != nil {
		if ctx.Err() != nil {
			// Told to stop while recovering: not a failure.
			return nil
		}
		return err
	}
	if _, err := l.refreshMemory(ctx); err != nil {
		return err
	}
	wake := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l.watch(wctx, wake)
	}()
	defer func() { cancel(); wg.Wait() }()
	settled := l.o.OnSettled == nil
	for {
		// A finish GitHub made wait is done first, once the wait is over.
		for len(l.unfinished) > 0 {
			if err := l.finish(ctx, l.unfinished[0]); rateLimited(err) {
				break
			} else if err != nil && ctx.Err() == nil {
				return err
			}
			l.unfinished = l.unfinished[1:]
		}
		if _, err := l.Step(ctx); err != nil && !rateLimited(err) {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if l.memoryIsDirty() {
			// A decision was stamped, unstamped or recorded: the Lead's
			// own view of the memory follows at once, not at the next
			// Worker's start.
			if _, err := l.refreshMemory(ctx); err != nil && ctx.Err() == nil {
				return err
			}
		}
		if err := l.dispatch(ctx); err != nil && !rateLimited(err) {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if err := l.flushCursor(ctx, false); err != nil && !rateLimited(err) && ctx.Err() == nil {
			return err
		}
		if !settled {
			// Before the status that shows the first pass done, so that
			// whoever waits for it finds the Lead settled.
			settled = true
			l.o.OnSettled()
		}
		l.writeStatus(ctx)
		tick, stopTick := l.heartbeatTimer()
		select {
		case <-ctx.Done():
			stopTick()
			return nil
		case <-wake:
		case <-tick:
			l.checkWorkers(time.Now())
			if err := l.restartDue(ctx, time.Now()); err != nil && ctx.Err() == nil {
				stopTick()
				return err
			}
		case <-l.resultCh:
			results := l.takeResults()
			for i, res := range results {
				err := l.finish(ctx, res)
				if rateLimited(err) {
					// GitHub made it wait: done first on a later pass.
					l.unfinished = append(l.unfinished, results[i:]...)
					break
				}
				if err != nil {
					// Not posted: back with the others, which the Lead's
					// end posts (shutdown), or else the next Lead
					// (result.json).
					l.mu.Lock()
					l.results = append(results[i:], l.results...)
					l.mu.Unlock()
					stopTick()
					if ctx.Err() != nil {
						return nil
					}
					return err
				}
			}
		}
		stopTick()
	}
}

// heartbeatTimer fires at the next heartbeat check while Workers run or
// wait for their restart (sooner when a restart is due first); an idle
// Lead keeps no timer.
func (l *Lead) heartbeatTimer() (<-chan time.Time, func()) {
	l.mu.Lock()
	busy := len(l.running) > 0 || len(l.pending) > 0
	d := l.live.CheckInterval
	for _, r := range l.pending {
		d = min(d, max(time.Until(r.at), time.Millisecond))
	}
	l.mu.Unlock()
	if !busy {
		return nil, func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// watch wakes the loop when the outbox has events past the cursor, or at
// the backend's bounded interval; it sends one wake at a time and waits
// for the loop to take it, so it never spins.
func (l *Lead) watch(ctx context.Context, wake chan<- struct{}) {
	for {
		l.mu.Lock()
		after := l.cursor
		l.mu.Unlock()
		if err := l.wait(ctx, after); err != nil && ctx.Err() != nil {
			return
		}
		select {
		case wake <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
}

// roleWaiter is a backend that can wake a Lead only for the writes that
// may concern its role (outbox.SQLite.WaitRole); its wake interval stays
// the fallback, after which the Lead reads every event anyway.
type roleWaiter interface {
	WaitRole(ctx context.Context, after int64, role string) error
}

// wait is the backend's role wait when it has one, else its Wait: with
// ten Leads, each reading every event cost the answering Lead its cores.
func (l *Lead) wait(ctx context.Context, after int64) error {
	if rw, ok := l.ob.(roleWaiter); ok {
		return rw.WaitRole(ctx, after, l.o.Role)
	}
	return l.ob.Wait(ctx, after)
}

// Step handles every event after the cursor that is there now and
// returns how many effects it committed. Effects on different issues are
// committed together (one transaction, each still under its own Trigger
// key, the cursor moved to the last): a Lead catching up on a long
// backlog pays one commit per batch, not per event.
func (l *Lead) Step(ctx context.Context) (int, error) {
	effects := 0
	for {
		evs, err := l.ob.Events(ctx, l.cursor, l.o.Page)
		if err != nil {
			return effects, err
		}
		if len(evs) == 0 {
			return effects, nil
		}
		var b batch
		for _, ev := range evs {
			// An event about an issue a pending effect changes, or one
			// that reads the Lead's own bookkeeping, sees the batch first.
			if b.size() > 0 && (b.touches(ev.Issue) || ev.Kind == outbox.EventClosed || b.size() >= maxBatch) {
				n, err := l.commit(ctx, &b)
				effects += n
				if err != nil {
					return effects, err
				}
			}
			eff, err := l.react(ctx, ev)
			if err != nil {
				return effects, err
			}
			if eff != nil {
				b.add(eff, ev)
			}
		}
		n, err := l.commit(ctx, &b)
		effects += n
		if err != nil {
			return effects, err
		}
		// The rest of the page needed nothing: the Lead moves past it at
		// once, the outbox's copy of its cursor later (flushCursor). A
		// Lead killed meanwhile reads those events again, which need
		// nothing again (every effect is under its Trigger).
		l.setCursor(evs[len(evs)-1].ID)
		l.lastRead = time.Now()
		if err := l.flushCursor(ctx, false); err != nil {
			return effects, err
		}
	}
}

// Bounds of the cursor's lag in the outbox: at most cursorFlushEvents
// events, and no longer than cursorFlushAfter once the Lead is idle (its
// next pass, at the latest the outbox's wake interval, writes it).
const (
	cursorFlushEvents = 512
	cursorFlushAfter  = time.Second
)

// flushCursor writes the Lead's cursor to the outbox when it is behind
// by cursorFlushEvents, or has been behind since the Lead went idle
// (always, with force).
func (l *Lead) flushCursor(ctx context.Context, force bool) error {
	l.mu.Lock()
	c := l.cursor
	l.mu.Unlock()
	if c <= l.saved || !force && c-l.saved < cursorFlushEvents && time.Since(l.lastRead) < cursorFlushAfter {
		return nil
	}
	if _, err := l.ob.Apply(ctx, outbox.Change{Reader: l.actor, UpTo: c}); err != nil {
		return err
	}
	l.saved = max(l.saved, c)
	return nil
}

// maxBatch bounds the effects of one transaction.
const maxBatch = 256

// batch is the effects waiting for one commit, with the events they
// answer and the issues they change.
type batch struct {
	effs    []*effect
	evs     []outbox.Event
	touched map[int64]bool
}

func (b *batch) size() int { return len(b.effs) }

func (b *batch) touches(id int64) bool { return b.touched[id] }

func (b *batch) add(e *effect, ev outbox.Event) {
	if b.touched == nil {
		b.touched = map[int64]bool{}
	}
	b.effs, b.evs = append(b.effs, e), append(b.evs, ev)
	b.touched[ev.Issue] = true
	for _, op := range e.change.Ops {
		b.touched[op.Issue] = true
	}
}

// commit applies the batch as one Change and empties it.
func (l *Lead) commit(ctx context.Context, b *batch) (int, error) {
	if b.size() == 0 {
		return 0, nil
	}
	defer func() { *b = batch{} }()
	last := b.evs[len(b.evs)-1]
	ch := outbox.Change{Actor: l.actor, Reader: l.actor, UpTo: last.ID,
		Trigger: b.effs[0].change.Trigger, Ops: b.effs[0].change.Ops}
	for _, e := range b.effs[1:] {
		ch.Parts = append(ch.Parts, outbox.Part{Trigger: e.change.Trigger, Ops: e.change.Ops})
	}
	res, err := l.ob.Apply(ctx, ch)
	if err != nil {
		return 0, fmt.Errorf("lead %s: events up to %d: %w", l.o.Role, last.ID, err)
	}
	l.setCursor(last.ID)
	l.saved = max(l.saved, last.ID)
	if res.Stale {
		return 0, nil
	}
	n := 0
	for i, e := range b.effs {
		dup, lost := res.Duplicate, res.Lost
		if i > 0 {
			dup, lost = res.PartDuplicate[i-1], res.PartLost[i-1]
		}
		if dup || lost {
			// Lost: another Lead claimed the issue first; nothing of
			// this effect was done.
			continue
		}
		n++
		if e.after != nil {
			e.after()
		}
		if l.o.OnEffect != nil {
			l.o.OnEffect(b.evs[i])
		}
	}
	return n, nil
}

func (l *Lead) setCursor(id int64) {
	l.mu.Lock()
	if id > l.cursor {
		l.cursor = id
	}
	l.mu.Unlock()
}

// shutdown stops the Workers still running (their issues stay
// state:running, and the next Lead runs them again), then posts the
// results of those that had finished on their own: a Lead told to stop
// keeps every finished Worker's work. What it cannot post in time stays
// in the attempts' result.json for the next Lead (recoverResult).
func (l *Lead) shutdown() {
	l.mu.Lock()
	for _, w := range l.running {
		w.proc.Stop(transcript.StopCancelled)
	}
	l.mu.Unlock()
	l.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownPosting)
	defer cancel()
	if err := l.flushCursor(ctx, true); err != nil {
		fmt.Fprintf(os.Stderr, "lead %s: keep the cursor at the end: %v\n", l.o.Role, err)
	}
	for _, res := range l.takeResults() {
		if res.stopped != transcript.StopNone {
			continue
		}
		if err := l.finish(ctx, res); err != nil {
			fmt.Fprintf(os.Stderr, "lead %s: post the result of #%d at the end: %v\n", l.o.Role, res.issue, err)
		}
	}
}

// shutdownPosting bounds the posting of finished results at a Lead's
// end, within the controller's stop grace.
const shutdownPosting = 3 * time.Second

// now is the clock of status files.
var now = func() time.Time { return time.Now().UTC() }

func ensureDir(dir string) error { return os.MkdirAll(dir, 0o755) }

// WakeFor is the bounded interval at which a Lead re-checks the outbox
// without a notification, and so beats its heartbeat, for a controller
// that judges silence after warning: four beats within it, between
// 100 ms and 5 s. The file watch wakes it at once on any change; the
// interval only bounds a lost notification and keeps idle Leads cheap.
func WakeFor(warning time.Duration) time.Duration {
	return min(max(warning/4, 100*time.Millisecond), 5*time.Second)
}

func (l *Lead) memoryIsDirty() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.memoryDirty
}
