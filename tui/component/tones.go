package component

import (
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/theme"
)

// PipelineTone says how a pipeline status reads.
func PipelineTone(status string) theme.Tone {
	switch status {
	case ledger.StatusDone:
		return theme.ToneOK
	case ledger.StatusFailed:
		return theme.ToneBad
	case ledger.StatusBlocked, ledger.StatusDraining:
		return theme.ToneWarn
	case ledger.StatusExecute, ledger.StatusAccept:
		return theme.ToneProgress
	case "":
		return theme.ToneMuted
	}
	return theme.ToneNeutral
}

// HeartbeatTone says how a heartbeat status reads.
func HeartbeatTone(status string) theme.Tone {
	switch status {
	case ledger.HeartbeatRunning, "ACTIVE":
		return theme.ToneOK
	case ledger.HeartbeatWarning:
		return theme.ToneWarn
	case ledger.HeartbeatStale:
		return theme.ToneBad
	case ledger.HeartbeatBlocked:
		return theme.ToneSpecial
	}
	return theme.ToneMuted
}

// LeaseTone says how a lease status reads.
func LeaseTone(status string) theme.Tone {
	switch status {
	case ledger.LeaseActive:
		return theme.ToneOK
	case ledger.LeaseExpired:
		return theme.ToneWarn
	case ledger.LeaseTakenOver:
		return theme.ToneSpecial
	}
	return theme.ToneMuted
}

// SeverityTone says how an event severity reads.
func SeverityTone(sev string) theme.Tone {
	switch sev {
	case ledger.SeverityWarn:
		return theme.ToneWarn
	case ledger.SeverityError:
		return theme.ToneBad
	}
	return theme.ToneMuted
}

// EventTone says how an event type reads.
func EventTone(typ string) theme.Tone {
	switch typ {
	case ledger.EventStepCompleted, ledger.EventAcceptancePassed:
		return theme.ToneOK
	case ledger.EventStepStarted:
		return theme.ToneProgress
	case ledger.EventStepFailed, ledger.EventAcceptanceFailed, ledger.EventHeartbeatStale:
		return theme.ToneBad
	case ledger.EventHeartbeatWarning:
		return theme.ToneWarn
	case ledger.EventLeaseTakeover:
		return theme.ToneSpecial
	}
	return theme.ToneNeutral
}

// StepPhase is where a step stands, read from its role_lifecycle value.
type StepPhase int

// Step phases.
const (
	StepPending StepPhase = iota
	StepRunning
	StepDone
	StepFailed
)

// PhaseOf classifies a "step:<id>" lifecycle value the way the handoff
// rules do (accepted/done/completed/passed/verified, anything failed,
// error or blocked), plus daokit's queued/dispatched states. done says the
// whole pipeline is DONE, which makes a released step a finished one.
func PhaseOf(value string, done bool) StepPhase {
	v := strings.ToLower(value)
	prefix, _, _ := strings.Cut(v, ":")
	switch {
	case v == "":
		if done {
			return StepDone
		}
		return StepPending
	case strings.Contains(v, "fail"), strings.Contains(v, "error"), strings.Contains(v, "blocked"),
		prefix == "lease_expired":
		return StepFailed
	case prefix == "accepted", prefix == "done", prefix == "completed", prefix == "passed", prefix == "verified",
		strings.HasPrefix(prefix, "accepted"), strings.HasPrefix(prefix, "completed"):
		return StepDone
	case prefix == "lease_released":
		if done {
			return StepDone
		}
		return StepPending
	case prefix == "queued":
		return StepPending
	}
	return StepRunning
}

// Tone says how a step phase reads.
func (p StepPhase) Tone() theme.Tone {
	switch p {
	case StepRunning:
		return theme.ToneProgress
	case StepDone:
		return theme.ToneOK
	case StepFailed:
		return theme.ToneBad
	}
	return theme.ToneMuted
}

// Glyph returns the phase's mark.
func (p StepPhase) Glyph(g theme.Glyphs) string {
	switch p {
	case StepRunning:
		return g.Running
	case StepDone:
		return g.Done
	case StepFailed:
		return g.Failed
	}
	return g.Pending
}
