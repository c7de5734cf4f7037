package heal

import "time"

// Silence is the verdict on one running worker's silence.
type Silence int

// Silence verdicts.
const (
	// SilenceNone: the worker speaks, or is busy computing.
	SilenceNone Silence = iota
	// SilenceWarning: silent past the warning threshold.
	SilenceWarning
	// SilenceStale: hung; the worker is stopped and its step taken over.
	SilenceStale
)

// JudgeSilence applies the thresholds to a running worker whose last
// output was at lastOutput: WARNING past the warning threshold, STALE
// past the stale one only on two agreeing signals, no output and no CPU
// progress since the previous check (progressing). A worker silent that
// long but computing is busy, not hung: no verdict. The health returned
// is what the verdict rests on, for its records.
func JudgeSilence(now time.Time, th Thresholds, lastOutput time.Time, progressing bool) (Silence, Health) {
	h := Evaluate(now, th, Signals{Active: true, Implicit: lastOutput})
	switch {
	case h.Status == HealthStale && !progressing:
		return SilenceStale, h
	case h.Status == HealthWarning:
		return SilenceWarning, h
	}
	return SilenceNone, h
}
