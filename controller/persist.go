package controller

import (
	"slices"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// opRunFinished marks the end of a run in events.jsonl: recovery treats an
// instruction without one as unfinished.
const opRunFinished = string(vocab.OpRunFinished)

// docSet names the documents that changed since the last flush.
type docSet uint8

const (
	docPipeline docSet = 1 << iota
	docLeases
	docHeartbeat
)

// persist writes r's pipeline when r is the run the file shows, and
// returns once it (or a newer state) is on disk: for a state recovery
// relies on (a step's output before its STEP_COMPLETED, a run's end). A
// failed write is logged and tried again by the next flush (see
// flushDocs).
func (c *Controller) persist(r *run) {
	shown := false
	c.do(func(st *loopState) { shown = c.touchIn(st, r) })
	if shown {
		c.flush(docPipeline)
	}
}

// touch marks r's pipeline for the next write without writing it now.
func (c *Controller) touch(r *run) {
	c.do(func(st *loopState) { c.touchIn(st, r) })
}

// touchIn marks r's pipeline for the next write when r is the run
// the file shows, and reports whether it is.
func (c *Controller) touchIn(st *loopState, r *run) bool {
	if st.current != r {
		return false
	}
	st.pending = clonePipeline(r.pipeline)
	st.dirty |= docPipeline
	return true
}

// persistSoon has r's pipeline written by the document writer, without
// waiting for it: for a state that is for people (a worker started, a
// session bound), which recovery does not need from the file.
func (c *Controller) persistSoon(r *run) {
	c.touch(r)
	c.writeSoon()
}

// writeSoon wakes the document writer to write every document marked
// for a write, docLinger from now.
func (c *Controller) writeSoon() {
	select {
	case c.docs.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// docLinger is how long the document writer gathers changes before it
// writes them: a run changes its pipeline several times a step, and one
// write (two fsyncs) covers them all. A flush that must be durable does
// not wait for it (see flush).
const docLinger = 50 * time.Millisecond

// docWriter is the one goroutine that writes the controller's documents
// (pipeline_state.json, leases.json, heartbeat.json). Each write takes
// the latest state from the state loop and writes it outside the loop,
// so that a slow fsync never holds up an acknowledgement; a document is
// replaced whole, so were two goroutines to write, an older state could
// land after a newer one. With one writer the documents land in the order of its
// snapshots without a lock to keep them in order, and the memory of
// failed writes (errs) is the writer's own. Whoever needs a document on
// disk asks the writer and waits (flush); whoever only changed one wakes
// it (writeSoon). Each flush is its own write, as when the callers wrote
// themselves: flushes that waited together could share one, but the
// runs it would speed up then compete with acknowledgements for the
// disk (BenchmarkInstructionAck's median about 0.2 ms worse).
type docWriter struct {
	kick    chan struct{}
	flushes chan docFlush
	quit    chan struct{}
	done    chan struct{}
	// errs is the last error each document's write failed with, so that
	// a write retried at every flush logs a failure once, not five times
	// a second. Only the writer's goroutine touches it.
	errs map[docSet]string
}

// docFlush asks the writer to write which now; written is closed once
// it is on disk (or the write failed and was logged).
type docFlush struct {
	which   docSet
	written chan struct{}
}

func newDocWriter() docWriter {
	return docWriter{kick: make(chan struct{}, 1), flushes: make(chan docFlush), quit: make(chan struct{}), done: make(chan struct{})}
}

// startDocs starts the document writer; the function it returns stops
// it and waits for it. The controller's last flush comes before.
func (c *Controller) startDocs() (stop func()) {
	go c.writeDocsLoop()
	return func() {
		close(c.docs.quit)
		<-c.docs.done
	}
}

// writeDocsLoop is the document writer: it writes what a flush asks for
// at once, and every marked document docLinger after writeSoon woke it.
func (c *Controller) writeDocsLoop() {
	w := &c.docs
	defer close(w.done)
	linger := time.NewTimer(docLinger)
	linger.Stop()
	defer linger.Stop()
	lingering := false
	for {
		select {
		case <-w.quit:
			return
		case <-w.kick:
			if !lingering {
				linger.Reset(docLinger)
				lingering = true
			}
		case <-linger.C:
			lingering = false
			c.writeDocs(docPipeline | docLeases | docHeartbeat)
		case f := <-w.flushes:
			c.writeDocs(f.which)
			close(f.written)
		}
	}
}

// writeLeases marks the lease register for the next flush. Called
// on the state loop; the caller flushes after its request.
func (c *Controller) writeLeases(st *loopState) { st.dirty |= docLeases }

// flushDocs writes every document changed since the last flush.
func (c *Controller) flushDocs() { c.flush(docPipeline | docLeases | docHeartbeat) }

// flush has the documents of which that changed since the last flush
// written, and returns once they are on disk (a failed write is logged
// and tried again by the next flush); other changed documents are left
// to the writer's linger. After the writer stopped it returns at once:
// nothing is written then (the controller's last flush came before).
// It waits for the writer, which asks the state loop: never call it
// from inside a request.
func (c *Controller) flush(which docSet) {
	f := docFlush{which: which, written: make(chan struct{})}
	select {
	case c.docs.flushes <- f:
		<-f.written
	case <-c.docs.done:
	}
}

// writeDocs writes the documents of which that changed since the last
// write: it takes the latest state from the state loop and writes it
// outside the loop, so that a slow fsync never holds up an
// acknowledgement. Only the document writer calls it, so an older state
// never overwrites a newer one.
func (c *Controller) writeDocs(which docSet) {
	var dirty docSet
	var rest bool
	var p ledger.PipelineState
	var leases ledger.Leases
	var hb ledger.HeartbeatStatus
	c.do(func(st *loopState) {
		dirty = st.dirty & which
		st.dirty &^= dirty
		rest = st.dirty != 0
		p = st.pending
		leases = st.leases
		leases.Leases = slices.Clone(st.leases.Leases)
		hb = st.hb
	})
	var failed docSet
	if dirty&docPipeline != 0 {
		err := c.wrote(docPipeline, "write pipeline", func() error { _, err := c.store.WritePipeline(p); return err }, "task_id", p.TaskID)
		if err != nil {
			failed |= docPipeline
		}
	}
	if dirty&docLeases != 0 {
		if err := c.wrote(docLeases, "write leases", func() error { _, err := c.store.WriteLeases(leases); return err }); err != nil {
			failed |= docLeases
		}
	}
	if dirty&docHeartbeat != 0 {
		if err := c.wrote(docHeartbeat, "write heartbeat", func() error { _, err := c.store.WriteHeartbeat(hb); return err }); err != nil {
			failed |= docHeartbeat
		}
	}
	if failed != 0 {
		// Not dropped: the next flush (at the latest the next liveness
		// check) writes the latest state again, until the disk has room.
		c.do(func(st *loopState) {
			st.dirty |= failed
		})
	}
	if rest {
		c.writeSoon()
	}
}

// wrote runs write, one document's write, and logs its failure once
// until it fails otherwise or succeeds (a failed write is tried again at
// every flush). Only the document writer calls it.
func (c *Controller) wrote(doc docSet, what string, write func() error, attrs ...any) error {
	errs := &c.docs.errs
	err := write()
	switch {
	case err == nil && (*errs)[doc] != "":
		delete(*errs, doc)
		c.log.Info(what+": written again", attrs...)
	case err != nil && (*errs)[doc] != err.Error():
		if *errs == nil {
			*errs = map[docSet]string{}
		}
		(*errs)[doc] = err.Error()
		c.log.Error(what, append(attrs, "err", err)...)
	}
	return err
}

// clonePipeline returns a copy of p that shares nothing it could mutate.
func clonePipeline(p ledger.PipelineState) ledger.PipelineState {
	p.Steps = slices.Clone(p.Steps)
	p.RoleLifecycle = p.RoleLifecycle.Clone()
	return p
}

// record appends events and returns once they are durable: for events
// something depends on after a crash (a step started, a run finished; a
// step's end is written, see recordWritten). A failure is logged rather
// than fatal to the run: the run's outcome still reaches the pipeline
// file.
func (c *Controller) record(events ...ledger.Event) {
	if err := c.journal.append(events...); err != nil {
		c.log.Error("append event", "type", events[0].EventType, "err", err)
	}
}

// recordWritten appends events and returns once they are in
// events.jsonl, before their fdatasync, which follows at once: for a
// step's end, so that the run goes on a flush sooner. A killed controller
// keeps them (the kernel has them). Only a crash of the machine within
// that flush can lose them, and then with everything recorded after
// them: the next worker's STEP_STARTED or the run's RUN_FINISHED is
// recorded, not written, and the one log's order makes it durable only
// with them. A step whose end such a crash lost runs again, as it would
// had the crash come a moment sooner.
func (c *Controller) recordWritten(events ...ledger.Event) {
	if err := c.journal.appendWritten(events...); err != nil {
		c.log.Error("append event", "type", events[0].EventType, "err", err)
	}
}

// note posts an event that tells the story but gates nothing (a run's
// state changes, worker output, verdicts and summaries): it is written in
// order with every other event, and the run goes on without waiting for
// its fsync. The next record proves it durable.
func (c *Controller) note(e ledger.Event) {
	if err := c.journal.post(e); err != nil {
		c.log.Error("post event", "type", e.EventType, "err", err)
	}
}

// newLifecycle starts the state machine of an attempt at step. Called
// on the state loop.
func (c *Controller) newLifecycle(r *run, step string) *lifecycle {
	owner := Owner{TaskID: r.pipeline.TaskID, RunID: r.pipeline.RunID, StepID: step}
	l, err := newLifecycle(owner, c.now)
	if err != nil {
		// A pipeline always names its task and run; a step may not be
		// chosen yet. The attempt still gets a state machine.
		owner.StepID = orGlobal(owner.StepID)
		owner.TaskID, owner.RunID = orGlobal(owner.TaskID), orGlobal(owner.RunID)
		l, _ = newLifecycle(owner, c.now)
	}
	return l
}

// transition moves r's current attempt to a new run state through the
// state machine, records it and tells the windows. An illegal transition
// is a bug in the controller: it is logged and refused.
func (c *Controller) transition(r *run, to, reason string) {
	var from string
	var err error
	var p ledger.PipelineState
	var state relay.RunState
	var quiet bool
	c.do(func(*loopState) {
		if r.life == nil {
			r.life = c.newLifecycle(r, r.pipeline.CurrentStep)
		}
		from = r.life.State()
		if err = r.life.To(to, reason); err != nil {
			return
		}
		_, reason = r.life.Current() // a cancel or timeout without a reason gets one
		p = r.pipeline
		state = r.relayState()
		quiet = r.quiet && to == stateWaiting // a resumed wait: see run.quiet
	})
	if err != nil {
		c.log.Error("illegal run transition", "from", from, "to", to, "err", err)
		return
	}
	if !quiet {
		e := c.events.system(p.TaskID, p.RunID, p.CurrentStep, ledger.SeverityInfo, opRunState,
			"from", from, "to", to, "reason_code", reason, "lane", state.Lane)
		if reason != "" && to != stateCompleted {
			e.Severity = ledger.SeverityWarn
		}
		c.note(e)
	}
	c.notify(relay.Notice{Kind: relay.NoticeRunState, Run: &state})
}
