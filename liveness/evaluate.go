package liveness

import (
	"fmt"
	"time"

	"github.com/daokit/daokit/vocab"
)

// Evaluated health states. Active is the evaluator's word for a live
// execution; the ledger stores it as RUNNING (ledger.HeartbeatRunning).
const (
	HealthIdle    = string(vocab.HealthIdle)
	HealthActive  = string(vocab.HealthActive)
	HealthWarning = string(vocab.HealthWarning)
	HealthStale   = string(vocab.HealthStale)
)

// Thresholds are the heartbeat limits, in whole seconds as in the ledger.
type Thresholds struct {
	// CheckInterval is how often the controller evaluates liveness.
	CheckInterval int
	// WarningAfter is the silence after which an execution is WARNING.
	WarningAfter int
	// StaleAfter is the silence after which it is STALE (and taken over).
	StaleAfter int
}

// DefaultCheckThresholds are the Python DAOKit's `check` defaults
// (300 / 900 / 1200 s), kept so that `daokit check` with no flags judges a
// ledger the way the Python tool does.
func DefaultCheckThresholds() Thresholds {
	return Thresholds{CheckInterval: 300, WarningAfter: 900, StaleAfter: 1200}
}

// ThresholdError says which threshold is wrong. Code is stable:
// "not_positive" or "order".
type ThresholdError struct {
	Name  string // check_interval_seconds, warning_after_seconds, stale_after_seconds
	Code  string
	Value int
	Other string // for "order": the threshold it must not be below
}

func (e *ThresholdError) Error() string {
	if e.Code == "order" {
		return fmt.Sprintf("%s must be >= %s", e.Name, e.Other)
	}
	return fmt.Sprintf("%s must be a positive integer", e.Name)
}

// Validate applies the Python evaluator's rules: all positive, and
// check_interval <= warning_after <= stale_after.
func (t Thresholds) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"check_interval_seconds", t.CheckInterval}, {"warning_after_seconds", t.WarningAfter}, {"stale_after_seconds", t.StaleAfter}} {
		if f.v <= 0 {
			return &ThresholdError{Name: f.name, Code: "not_positive", Value: f.v}
		}
	}
	if t.WarningAfter < t.CheckInterval {
		return &ThresholdError{Name: "warning_after_seconds", Code: "order", Value: t.WarningAfter, Other: "check_interval_seconds"}
	}
	if t.StaleAfter < t.WarningAfter {
		return &ThresholdError{Name: "stale_after_seconds", Code: "order", Value: t.StaleAfter, Other: "warning_after_seconds"}
	}
	return nil
}

// Signals are the liveness evidence of an execution. Zero times mean "no
// signal".
type Signals struct {
	Active   bool      // an execution is under way
	Explicit time.Time // last recorded heartbeat
	Implicit time.Time // newest output (artifact mtime, worker line)
}

// Health is the verdict of Evaluate.
type Health struct {
	Status     string    // HealthIdle, HealthActive, HealthWarning, HealthStale
	ReasonCode string    // NO_OUTPUT_<n>{H,M,S} for WARNING and STALE, else ""
	Silence    int       // whole seconds since the newest signal
	SignalAt   time.Time // the newest signal, zero if none
}

// Evaluate judges liveness exactly as the Python DAOKit's evaluator does:
// idle when nothing runs; with no signal at all the silence counts as
// stale_after (immediately STALE); boundaries are inclusive.
func Evaluate(now time.Time, t Thresholds, s Signals) Health {
	if !s.Active {
		return Health{Status: HealthIdle}
	}
	signal := s.Explicit
	if s.Implicit.After(signal) {
		signal = s.Implicit
	}
	silence := t.StaleAfter
	if !signal.IsZero() {
		silence = max(int(now.Sub(signal)/time.Second), 0)
	}
	h := Health{Status: HealthActive, Silence: silence, SignalAt: signal}
	switch {
	case silence >= t.StaleAfter:
		h.Status, h.ReasonCode = HealthStale, ReasonCode(t.StaleAfter)
	case silence >= t.WarningAfter:
		h.Status, h.ReasonCode = HealthWarning, ReasonCode(t.WarningAfter)
	}
	return h
}

// ReasonCode names a silence threshold the way the Python tool does:
// NO_OUTPUT_1H, NO_OUTPUT_15M, NO_OUTPUT_45S.
func ReasonCode(seconds int) string {
	switch {
	case seconds > 0 && seconds%3600 == 0:
		return string(vocab.NoOutput(seconds/3600, 'H'))
	case seconds > 0 && seconds%60 == 0:
		return string(vocab.NoOutput(seconds/60, 'M'))
	default:
		return string(vocab.NoOutput(seconds, 'S'))
	}
}
