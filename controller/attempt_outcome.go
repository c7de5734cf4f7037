package controller

// outcome is how one worker attempt at a step ended, from the run's view.
type outcome int

const (
	outcomeDone        outcome = iota // the step is finished
	outcomeFailed                     // the run fails; a person may retry
	outcomeRestart                    // start the step again (policy permitting)
	outcomeCancelled                  // a person cancelled the run
	outcomeInterrupted                // the controller is shutting down
	outcomeBlocked                    // the run waits for a person (restart budget spent)
	outcomeReview                     // the step's change waits for the person's verdict
)
