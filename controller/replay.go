package controller

import (
	"encoding/json"
	"slices"
	"sync/atomic"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// The replay signal (seed 000, Detect: "event replay signal"): on every
// pass the liveness loop reads the events appended to events.jsonl since
// its last look, and picks out those another writer appended (the Python
// tool, a `daokit takeover` run without this controller). Two of them it
// reacts to: a takeover of a step one of its runs is running (the run
// stops acting on it: see takeoverSeen), and a run it does not have (a
// foreign run: reported once, not acted on). Everything else is history
// the next start replays.
const (
	// OpTakeoverSeen records that another writer took over a run of this
	// controller, and what the controller did about it.
	OpTakeoverSeen = string(vocab.OpTakeoverSeen)
	// OpForeignRun records a run another writer started or wrote to,
	// which this controller does not have. Reported once per run.
	OpForeignRun = string(vocab.OpForeignRun)
)

// replaySignal is the loop's reader of events.jsonl. Only the loop's
// goroutine calls read, so it owns everything here but own, the inbox
// the journal hands the ids of its events through.
type replaySignal struct {
	follower *ledger.Follower
	// own is where the journal leaves the ids of the events it writes.
	own ownEvents
	// mine are the ids of this controller's events the reader took from
	// own and has not met yet: an event met that is in neither is
	// someone else's.
	mine map[string]struct{}
	// foreign are the runs already reported foreign (task and run).
	foreign map[[2]string]bool
	// lastErr is the last read error logged, so that a broken file is
	// logged once, not on every pass.
	lastErr string
}

// replayReadsPerPass bounds the follower reads of one pass (each at most
// a few MiB): a long backlog is caught up over a few passes rather than
// stalling the checks.
const replayReadsPerPass = 8

// ownCap bounds the ids kept for the reader. The reader forgets each as
// it meets it, so only a reader failing for long gets near; it then
// starts over (and may report its own events of that stretch as foreign:
// reports only).
const ownCap = 1 << 17

func newReplaySignal(events string, from int64) *replaySignal {
	return &replaySignal{follower: ledger.NewFollower(events, from), mine: map[string]struct{}{}, foreign: map[[2]string]bool{}}
}

// ownEvents hands the ids of the events this controller writes from the
// journal's goroutine to the replay signal's, which run at their own
// pace: the journal must never wait for the reader, and the reader must
// know an id before it can meet its event in the file. The journal
// pushes each write's ids, before the write, onto a list it shares
// with nobody but through one atomic pointer; the reader takes the whole
// list at once by swapping in nil, and from then on owns it. Nothing is
// changed after it was pushed, so neither side ever waits for the other.
type ownEvents struct {
	head atomic.Pointer[ownBatch]
}

// ownBatch is one write's ids, with those pushed before it.
type ownBatch struct {
	ids  []string
	n    int // ids in this batch and every one after it
	next *ownBatch
}

// add hands over the ids of events, before they can be in the file.
// More than ownCap waiting (a reader that stopped taking them) drops the
// older ones.
func (o *ownEvents) add(events []ledger.Event) {
	ids := make([]string, len(events))
	for i := range events {
		ids[i] = events[i].EventID
	}
	for {
		old := o.head.Load()
		b := &ownBatch{ids: ids, n: len(ids), next: old}
		if old != nil && old.n+len(ids) <= ownCap {
			b.n += old.n
		} else {
			b.next = nil
		}
		if o.head.CompareAndSwap(old, b) {
			return
		}
	}
}

// take reports whether id is this controller's, and forgets it. Only the
// reader calls it: the ids handed over so far are taken into mine first,
// when id is not there already.
func (s *replaySignal) take(id string) bool {
	if _, ok := s.mine[id]; !ok {
		b := s.own.head.Swap(nil)
		if b != nil && len(s.mine)+b.n > ownCap {
			s.mine = make(map[string]struct{}, b.n)
		}
		for ; b != nil; b = b.next {
			for _, id := range b.ids {
				s.mine[id] = struct{}{}
			}
		}
	}
	_, ok := s.mine[id]
	delete(s.mine, id)
	return ok
}

// read returns the events other writers appended since the last read.
// When nothing was appended it costs two stats. When the file was
// replaced or truncated under it (Batch.Reset), the lines the new file
// held then are dropped, and what is appended after them is read.
func (s *replaySignal) read(log func(msg string, args ...any)) []ledger.Event {
	if s == nil {
		return nil // a controller not opened by open (tests)
	}
	var out []ledger.Event
	for range replayReadsPerPass {
		b, err := s.follower.Next()
		if err != nil {
			if msg := err.Error(); msg != s.lastErr {
				s.lastErr = msg
				log("read events for the replay signal", "err", err)
			}
			return out
		}
		s.lastErr = ""
		if b.Reset {
			// What the new file holds is history, not news (the next
			// start replays it); what the old one had left was read
			// before (Follower drains it first) and stays.
			log("events.jsonl was replaced; the replay signal reads on from its new content", "offset", b.Offset)
			b.Events = nil
		}
		for _, e := range b.Events {
			if !s.take(e.EventID) {
				out = append(out, e)
			}
		}
		if !b.More {
			break
		}
	}
	return out
}

// ledgerOps are the SYSTEM operations the ledger itself records when one
// writer meets another's document: they name a run, but start none.
var ledgerOps = []string{ledger.OpCommitDiscarded, ledger.OpWriteConflict, ledger.OpLeasesMerged, ledger.OpForeignPipelineReplaced}

// react handles what other writers appended: a takeover of a step
// a run of this controller is running detaches the run's leases (they
// are the successor's now: renewing them would contest the takeover) and
// is posted to the run, which stops its worker (see takeoverSeen); any
// other takeover of a run it has is recorded, as is once each run it
// does not have. It returns the events to record. Called on the state loop,
// before the pass renews leases.
func (c *Controller) react(st *loopState, foreign []ledger.Event) (events []ledger.Event) {
	for _, e := range foreign {
		r := c.runOf(st, e.TaskID, e.RunID)
		switch {
		case e.EventType == ledger.EventLeaseTakeover && r != nil:
			if ev, ok := c.takeover(r, e); ok {
				events = append(events, ev)
			}
		case r != nil, e.TaskID == globalID, e.TaskID == standingTask:
		case e.EventType == ledger.EventSystem && slices.Contains(ledgerOps, e.Payload.String("operation")):
		case !c.replay.foreign[[2]string{e.TaskID, e.RunID}]:
			c.replay.foreign[[2]string{e.TaskID, e.RunID}] = true
			c.log.Warn("another writer runs a run this controller does not have; reported, not acted on",
				"task_id", e.TaskID, "run_id", e.RunID, "event_type", e.EventType, "event_id", e.EventID)
			events = append(events, c.events.system(globalID, globalID, "", ledger.SeverityWarn, OpForeignRun,
				"foreign_task_id", e.TaskID, "foreign_run_id", e.RunID, "event_id", e.EventID, "event_type", e.EventType,
				"step_id", e.StepID, "acted", false))
		}
	}
	return events
}

// runOf is this controller's run of task and run, or nil.
func (c *Controller) runOf(st *loopState, taskID, runID string) *run {
	for _, r := range st.order {
		if r.pipeline.TaskID == taskID && r.pipeline.RunID == runID {
			return r
		}
	}
	return nil
}

// takeover reacts to another writer's LEASE_TAKEOVER e of r. When
// the takeover names the step r's worker is on (adopted, or failed as
// expired), the step is lost: r's leases on it are dropped from the
// renewals and the run hears it (obsTakenOver). Otherwise (r waits, or
// the takeover took nothing of it) it is only recorded.
func (c *Controller) takeover(r *run, e ledger.Event) (ledger.Event, bool) {
	step := r.pipeline.CurrentStep
	named := slices.Contains(payloadStrings(e.Payload, "adopted_step_ids"), step) || slices.Contains(payloadStrings(e.Payload, "failed_step_ids"), step)
	seen := takeoverNews{eventID: e.EventID, at: e.Payload.String("takeover_at"), step: step,
		thread: e.Payload.String("successor_thread_id"), pid: payloadInt(e.Payload, "successor_pid"), generation: payloadInt(e.Payload, "generation")}
	if named && r.proc != nil && !r.proc.Exited() {
		r.lease, r.ctlLease = nil, nil
		c.log.Warn("another writer took over the step this controller runs; stopping its worker",
			"task_id", r.pipeline.TaskID, "run_id", r.pipeline.RunID, "step", step, "event_id", e.EventID)
		r.post(observation{kind: obsTakenOver, proc: r.proc, takeover: seen})
		return ledger.Event{}, false // the run records it (see takeoverSeen)
	}
	c.log.Warn("another writer took over a run of this controller; it runs no worker on that step",
		"task_id", r.pipeline.TaskID, "run_id", r.pipeline.RunID, "step", step, "event_id", e.EventID)
	return c.takeoverEvent(r.pipeline.TaskID, r.pipeline.RunID, seen, false), true
}

// takeoverNews is another writer's takeover of a run's step.
type takeoverNews struct {
	eventID, at, step, thread string
	pid, generation           int
}

// takeoverEvent is TAKEOVER_SEEN: whose takeover, of which step, and
// whether the controller stopped a worker for it (acted).
func (c *Controller) takeoverEvent(taskID, runID string, n takeoverNews, acted bool) ledger.Event {
	return c.events.system(taskID, runID, n.step, ledger.SeverityWarn, OpTakeoverSeen,
		"reason_code", ReasonLeaseLost, "takeover_event_id", n.eventID, "takeover_at", n.at,
		"successor_thread_id", n.thread, "successor_pid", n.pid, "generation", n.generation, "acted", acted)
}

// payloadStrings reads a list of strings from o (nil when absent or not
// one: another writer's payload is read, not trusted).
func payloadStrings(o ledger.Object, key string) []string {
	var out []string
	if raw, ok := o.Get(key); ok && json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// takeoverSeen is the run's handling of another writer's takeover of the
// step its worker proc is on: recorded (TAKEOVER_SEEN, LEASE_LOST), then
// the worker is stopped as having lost its lease, so that its end is
// classified LEASE_LOST, a failure the restart policy leaves alone: the
// run does not start the step again. Run goroutine only.
func (c *Controller) takeoverSeen(r *run, proc *worker.Process, o observation) {
	if o.proc != proc {
		return // about an earlier attempt
	}
	c.recordTakeover(r, o.takeover, true)
	proc.Stop(transcript.StopLeaseLost)
}

// recordTakeover records TAKEOVER_SEEN under r's task and run.
func (c *Controller) recordTakeover(r *run, n takeoverNews, acted bool) {
	var taskID, runID string
	c.do(func(*loopState) {
		taskID, runID = r.pipeline.TaskID, r.pipeline.RunID
	})
	c.record(c.takeoverEvent(taskID, runID, n, acted))
}
