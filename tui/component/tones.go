package component

import (
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/theme"
)

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
