// Package say words what a run's output line says in a reader's
// language. The controller sends a line's meaning (a reason code, a
// message id with its arguments, an agent's structured events) beside
// its own wording; the window and the CLI word it here, each in its own
// language, so that one rule serves both ends of the relay.
package say

import (
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// Line is an output line as the controller sent it.
type Line struct {
	// Text is the controller's own wording, in its language: shown when
	// the line carries nothing else (a plain line a worker printed), or
	// when the reader's catalogs do not know its message.
	Text string
	// Parts are the events of an agent's structured line.
	Parts []transcript.Part
	// Reason is a reason code the line reports.
	Reason string
	// Message is a catalog message id the controller says, with Args
	// its template's arguments.
	Message string
	Args    map[string]string
}

// Words returns l in loc's language: its reason, its message or its
// parts when it has them, else Text.
func (l Line) Words(loc *i18n.Localizer) string {
	switch {
	case l.Reason != "":
		return vocab.Reason(l.Reason).Label(loc)
	case l.Message != "":
		kv := make([]any, 0, 2*len(l.Args))
		for k, v := range l.Args {
			kv = append(kv, k, v)
		}
		if s := loc.T(l.Message, kv...); s != l.Message {
			return s
		}
	case len(l.Parts) > 0:
		return transcript.DescribeParts(loc, l.Parts)
	}
	return l.Text
}

// FromRelay is the line a relay notice carries.
func FromRelay(o relay.OutputLine) Line {
	l := Line{Text: o.Line, Reason: o.Reason, Message: o.Message, Args: o.Args}
	if len(o.Parts) > 0 {
		l.Parts = make([]transcript.Part, len(o.Parts))
		for i, p := range o.Parts {
			l.Parts[i] = transcript.Part{Type: transcript.EventType(p.Type), Detail: p.Detail, Failed: p.Failed}
		}
	}
	return l
}

// ToRelay is the parts of a worker's record as a relay notice carries
// them; nil for a plain line.
func ToRelay(parts []transcript.Part) []relay.OutputPart {
	if len(parts) == 0 {
		return nil
	}
	out := make([]relay.OutputPart, len(parts))
	for i, p := range parts {
		out[i] = relay.OutputPart{Type: string(p.Type), Detail: p.Detail, Failed: p.Failed}
	}
	return out
}
