package heal

import (
	"time"

	"github.com/daokit/daokit/liveness"
)

// Evaluated health states (see liveness). Active is the evaluator's word
// for a live execution; the ledger stores it as RUNNING
// (ledger.HeartbeatRunning).
const (
	HealthIdle    = liveness.HealthIdle
	HealthActive  = liveness.HealthActive
	HealthWarning = liveness.HealthWarning
	HealthStale   = liveness.HealthStale
)

// Thresholds are the heartbeat limits (liveness.Thresholds).
type Thresholds = liveness.Thresholds

// ThresholdError says which threshold is wrong (liveness.ThresholdError).
type ThresholdError = liveness.ThresholdError

// Signals are the liveness evidence of an execution (liveness.Signals).
type Signals = liveness.Signals

// Health is the verdict of Evaluate (liveness.Health).
type Health = liveness.Health

// Evaluate judges liveness as the Python DAOKit's evaluator does: the
// healing loop uses the same rule as check and the window.
func Evaluate(now time.Time, t Thresholds, s Signals) Health { return liveness.Evaluate(now, t, s) }

// ReasonCode names a silence threshold the way the Python tool does.
func ReasonCode(seconds int) string { return liveness.ReasonCode(seconds) }
