package liveness

import (
	"errors"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 2, 11, 16, 0, 0, 0, time.UTC)
	th := Thresholds{CheckInterval: 60, WarningAfter: 900, StaleAfter: 1200}
	ago := func(s int) time.Time { return now.Add(-time.Duration(s) * time.Second) }
	tests := []struct {
		name        string
		s           Signals
		wantStatus  string
		wantReason  string
		wantSilence int
	}{
		{"inactive is idle even when silent", Signals{Active: false, Explicit: ago(5000)}, HealthIdle, "", 0},
		{"no signal is immediately stale", Signals{Active: true}, HealthStale, "NO_OUTPUT_20M", 1200},
		{"fresh beat", Signals{Active: true, Explicit: ago(10)}, HealthActive, "", 10},
		{"just under warning", Signals{Active: true, Explicit: ago(899)}, HealthActive, "", 899},
		{"warning boundary is inclusive", Signals{Active: true, Explicit: ago(900)}, HealthWarning, "NO_OUTPUT_15M", 900},
		{"just under stale", Signals{Active: true, Explicit: ago(1199)}, HealthWarning, "NO_OUTPUT_15M", 1199},
		{"stale boundary is inclusive", Signals{Active: true, Explicit: ago(1200)}, HealthStale, "NO_OUTPUT_20M", 1200},
		{"newer output beats an old beat", Signals{Active: true, Explicit: ago(5000), Implicit: ago(3)}, HealthActive, "", 3},
		{"newer beat beats old output", Signals{Active: true, Explicit: ago(2), Implicit: ago(5000)}, HealthActive, "", 2},
		{"signal in the future is zero silence", Signals{Active: true, Explicit: now.Add(time.Minute)}, HealthActive, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate(now, th, tt.s)
			if got.Status != tt.wantStatus || got.ReasonCode != tt.wantReason || got.Silence != tt.wantSilence {
				t.Errorf("got %s/%q/%d, want %s/%q/%d", got.Status, got.ReasonCode, got.Silence, tt.wantStatus, tt.wantReason, tt.wantSilence)
			}
		})
	}
}

func TestReasonCode(t *testing.T) {
	t.Parallel()
	for seconds, want := range map[int]string{
		900: "NO_OUTPUT_15M", 1200: "NO_OUTPUT_20M", 3600: "NO_OUTPUT_1H", 120: "NO_OUTPUT_2M",
		7201: "NO_OUTPUT_7201S", 45: "NO_OUTPUT_45S", 7200: "NO_OUTPUT_2H",
	} {
		if got := ReasonCode(seconds); got != want {
			t.Errorf("ReasonCode(%d) = %q, want %q", seconds, got, want)
		}
	}
}

func TestThresholdsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		th       Thresholds
		wantName string
		wantCode string
	}{
		{DefaultCheckThresholds(), "", ""},
		{Thresholds{1, 1, 1}, "", ""},
		{Thresholds{0, 900, 1200}, "check_interval_seconds", "not_positive"},
		{Thresholds{300, -1, 1200}, "warning_after_seconds", "not_positive"},
		{Thresholds{300, 900, 0}, "stale_after_seconds", "not_positive"},
		{Thresholds{300, 200, 1200}, "warning_after_seconds", "order"},
		{Thresholds{300, 900, 800}, "stale_after_seconds", "order"},
	}
	for _, tt := range tests {
		err := tt.th.Validate()
		var te *ThresholdError
		if tt.wantName == "" {
			if err != nil {
				t.Errorf("%+v: got %v, want valid", tt.th, err)
			}
			continue
		}
		if !errors.As(err, &te) || te.Name != tt.wantName || te.Code != tt.wantCode {
			t.Errorf("%+v: got %v, want %s/%s", tt.th, err, tt.wantName, tt.wantCode)
		}
	}
}
