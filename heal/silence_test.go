package heal

import (
	"testing"
	"time"
)

func TestJudgeSilenceNeedsTwoSignalsForStale(t *testing.T) {
	t.Parallel()
	th := Thresholds{CheckInterval: 1, WarningAfter: 10, StaleAfter: 20}
	for _, tc := range []struct {
		name        string
		silent      time.Duration
		progressing bool
		want        Silence
	}{
		{"speaking", 5 * time.Second, false, SilenceNone},
		{"at the warning threshold", 10 * time.Second, false, SilenceWarning},
		{"warning while computing", 15 * time.Second, true, SilenceWarning},
		{"stale and idle", 20 * time.Second, false, SilenceStale},
		{"stale but computing: busy, not hung", 25 * time.Second, true, SilenceNone},
	} {
		got, h := JudgeSilence(t0.Add(tc.silent), th, t0, tc.progressing)
		if got != tc.want || !h.SignalAt.Equal(t0) {
			t.Errorf("%s: %v (%+v), want %v", tc.name, got, h, tc.want)
		}
	}
}
