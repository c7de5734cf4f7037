package controller

// stateLoop is the one goroutine that owns the controller's loop state
// (hashicorp/raft's run(): one goroutine's fields, and everybody else
// asks it). Callers hand it a closure over *loopState and wait until the
// loop ran it; the state is a local variable of the loop's goroutine, so
// no other goroutine can reach it, and no lock guards it.
//
// Requests are closures rather than one message type per operation: the
// compiler still checks each against the state's type, there is no
// switch to keep in step with the callers, and a request that needs an
// answer writes it into its caller's variables before do returns. What a
// request decides that takes the controller's other locks or writes the
// ledger (a queued run's start, its new place in line) is handed back to
// the caller as data (laneEffects) and done outside the loop, so that the
// loop never waits for anything but its next request.
type stateLoop struct {
	reqs chan func(*loopState)
	quit chan struct{}
	done chan struct{}
}

// loopState is what the loop owns: the lanes, their slots and the runs
// queued for them.
type loopState struct {
	lanes *laneScheduler
}

func newStateLoop() *stateLoop {
	return &stateLoop{reqs: make(chan func(*loopState)), quit: make(chan struct{}), done: make(chan struct{})}
}

// start runs the loop on st until stop.
func (l *stateLoop) start(st *loopState) {
	go func() {
		defer close(l.done)
		for {
			select {
			case f := <-l.reqs:
				f(st)
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
	ran := make(chan struct{})
	select {
	case l.reqs <- func(st *loopState) { f(st); close(ran) }:
		<-ran
		return true
	case <-l.done:
		return false
	}
}
