package controller

import (
	"sync"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// stateLoop is the one goroutine that owns the controller's state
// (hashicorp/raft's run(): one goroutine's fields, and everybody else
// asks it). Run goroutines, the liveness tick, the relay's handlers and
// the Leads' supervision hand it a closure over *loopState and wait until
// the loop ran it; the state is a local variable of the loop's
// goroutine, so no other goroutine can reach it, and no lock guards it.
// What it owns is loopState's list.
//
// Requests are closures rather than one message type per operation: the
// compiler still checks each against the state's type, there is no
// switch to keep in step with the callers, and a request that needs an
// answer writes it into its caller's variables before do returns. What a
// request decides that takes the controller's other locks or writes the
// ledger (a queued run's start, its new place in line, a document's
// write, an event's append) is handed back to the caller as data
// (laneEffects, the documents flush takes) and done outside the loop,
// so that the loop never waits for anything but its next request.
//
// The loop is not re-entrant: a request must never ask the loop itself
// (it would wait for the request it is part of). Helpers that work on the
// state take it as a parameter (st *loopState) instead: holding st is
// what lets a function touch the state, so the compiler keeps them
// inside requests.
//
// The controller's loop starts in open, before anything can ask it, and
// stops last (Controller.close, deferred first in Run): after serve has
// waited for every run, the liveness tick, the relay's handlers and the
// Leads, and after the journal and the store closed. A request after
// that is a bug, logged and not run (Controller.do).
type stateLoop struct {
	reqs chan loopRequest
	quit chan struct{}
	done chan struct{}
}

// loopRequest is one closure to run on the loop and where to say it ran.
type loopRequest struct {
	f   func(*loopState)
	ran chan struct{}
}

// ranPool keeps the channels requests are answered on, so that a request
// costs its closure and nothing else.
var ranPool = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// loopState is what the loop owns: the runs of this process, the
// pipeline the file shows and the documents waiting for their write,
// the lease register with the controller's standing lease, the
// heartbeat, the lanes with their slots and queued runs, the answers of
// forwarded commands, and which role Leads are supervised (team; the
// Leads' processes and status files belong to the goroutine that
// supervises them, their leases to the register here). A run's own
// fields (see run) are the loop's too: they are read and written inside
// requests only, except where run's comments say otherwise.
type loopState struct {
	lanes *laneScheduler

	dirty    docSet               // documents changed since the last flush
	pending  ledger.PipelineState // the pipeline to write next
	pipeline ledger.PipelineState // what the previous controller left, for recovery
	leases   ledger.Leases
	hb       ledger.HeartbeatStatus
	order    []*run // every run of this process, oldest first
	current  *run   // the run pipeline_state.json shows
	// watched: an observer has watched since the waiting runs were last
	// dropped for their person leaving (leave.go).
	watched  bool
	stopping bool
	// outcomes are the answers of the latest forwarded commands, by
	// message id (outcomeIDs, oldest first), for a resend (operate.go).
	outcomes   map[string]relay.Outcome
	outcomeIDs []string
	// standing is the controller's standing lease.
	standing *heal.Held
	// team supervises the role Leads (team.go); nil without workflow.toml.
	team *teamSup
}

func newStateLoop() *stateLoop {
	return &stateLoop{reqs: make(chan loopRequest), quit: make(chan struct{}), done: make(chan struct{})}
}

// start runs the loop on st until stop.
func (l *stateLoop) start(st *loopState) {
	go func() {
		defer close(l.done)
		for {
			select {
			case r := <-l.reqs:
				r.f(st)
				r.ran <- struct{}{}
			case <-l.quit:
				return
			}
		}
	}()
}

// stop ends the loop and waits for it. Requests after stop are not run.
func (l *stateLoop) stop() {
	close(l.quit)
	<-l.done
}

// do runs f on the loop and returns once it ran, or false without
// running it when the loop has stopped.
func (l *stateLoop) do(f func(*loopState)) bool {
	ran := ranPool.Get().(chan struct{})
	select {
	case l.reqs <- loopRequest{f: f, ran: ran}:
		<-ran
		ranPool.Put(ran)
		return true
	case <-l.done:
		ranPool.Put(ran)
		return false
	}
}

// do runs f on the controller's state loop and returns once it ran. The
// loop stops last, after every goroutine that could ask it (see Run), so
// a request after that is a bug: it is logged, not run.
func (c *Controller) do(f func(st *loopState)) {
	if !c.state.do(f) {
		c.log.Error("a request reached the controller's state loop after it stopped; not run")
	}
}
