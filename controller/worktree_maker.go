package controller

import "errors"

// treeMaker is the one goroutine that adds worktrees to the person's
// repositories. `git worktree add` names its administrative folder after
// the path's last element (the step id, the same in every run), and
// ignoreWorktrees rewrites .git/info/exclude: two runs doing either at
// once can race for the folder's name or lose a line. What needs
// guarding is those files, not memory the runs share, so there is no
// value to publish: the work itself is handed to this goroutine, which
// does one at a time in the order asked, while each run waits for its
// own.
type treeMaker struct {
	reqs chan func()
	quit chan struct{}
	done chan struct{}
}

// errTreesStopped answers a worktree asked for after the controller
// stopped making them.
var errTreesStopped = errors.New("the controller is stopping")

func newTreeMaker() treeMaker {
	return treeMaker{reqs: make(chan func()), quit: make(chan struct{}), done: make(chan struct{})}
}

// start starts the worktree maker; the function it returns stops it
// and waits for it. The runs that ask it end before.
func (t *treeMaker) start() (stop func()) {
	go func() {
		defer close(t.done)
		for {
			select {
			case work := <-t.reqs:
				work()
			case <-t.quit:
				return
			}
		}
	}()
	return func() {
		close(t.quit)
		<-t.done
	}
}

// do runs work on the worktree maker and returns once it ran, or
// errTreesStopped without running it when the maker has stopped.
func (t *treeMaker) do(work func()) error {
	made := make(chan struct{})
	select {
	case t.reqs <- func() { work(); close(made) }:
		<-made
		return nil
	case <-t.done:
		return errTreesStopped
	}
}
