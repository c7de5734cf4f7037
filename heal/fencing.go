package heal

import "github.com/daokit/daokit/liveness"

// FenceAction is what a successor does about the controller holding its
// root.
type FenceAction int

// Fence actions.
const (
	// FenceNone: the holder is alive, or nothing says otherwise; the
	// successor does not start.
	FenceNone FenceAction = iota
	// FenceSpare: the holder let its standing lease lapse but answers on
	// its socket (its disk may be full, a clock jumped): it is alive and
	// left alone.
	FenceSpare
	// FenceKill: the lease lapsed and the holder does not answer: it is
	// hung (paused, stuck in the kernel), killed, and the root taken.
	FenceKill
)

// DecideFence decides on two independent signals: holder's standing
// lease lapsed (liveness.Controller.Hung), and it does not answer.
// answers is asked only when the lease lapsed: it costs a connection
// and up to a ping's timeout.
func DecideFence(holder liveness.Controller, answers func() bool) FenceAction {
	switch {
	case !holder.Hung():
		return FenceNone
	case answers():
		return FenceSpare
	}
	return FenceKill
}
