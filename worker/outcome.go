package worker

import "github.com/daokit/daokit/worker/transcript"

// maxDenials is how many refused calls a Summary keeps: enough to tell a
// person what the lane's permissions stopped, bounded whatever an agent
// retries.
const maxDenials = 20

// Outcome is what an agent CLI said about how its work went besides its
// result: the calls its permissions refused, the failure it named, and
// its latest retry. Kept however many records were dropped.
type Outcome struct {
	// Denied lists the refused calls, each tool and target once, in the
	// order seen; DeniedMore counts those beyond maxDenials.
	Denied     []Denial
	DeniedMore int
	// Failure is the latest failure kind a result or an error named
	// (transcript.FailAuth, …), "" when none did.
	Failure string
	// Retry is the CLI's latest retry of a request to its provider.
	Retry *transcript.Retry
}

// Denial is one call an agent's permissions refused.
type Denial struct {
	// Tool is the CLI's name for the tool (Edit, Bash, apply_patch).
	Tool string
	// Target is what the call was about: a path, a command, or the
	// sandbox's reason when the CLI names nothing else.
	Target string
}

// note keeps what ev says about the outcome.
func (o *Outcome) note(ev transcript.Event) {
	switch ev.Type {
	case transcript.EventDenied:
		d := Denial{Tool: ev.Tool, Target: ev.Text}
		for _, seen := range o.Denied {
			if seen == d {
				return
			}
		}
		if len(o.Denied) == maxDenials {
			o.DeniedMore++
			return
		}
		o.Denied = append(o.Denied, d)
	case transcript.EventRetry:
		if ev.Retry != nil {
			r := *ev.Retry
			o.Retry = &r
		}
	case transcript.EventResult, transcript.EventError:
		if ev.Failure != "" {
			o.Failure = ev.Failure
		}
	}
}
