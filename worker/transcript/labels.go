package transcript

import (
	"slices"
	"strings"

	"github.com/daokit/daokit/i18n"
)

// EventLabel names an event type in loc's language; an unknown type (from
// a newer worker) is shown as it is.
func EventLabel(loc *i18n.Localizer, t EventType) string {
	if !slices.Contains(EventTypes(), t) {
		return string(t)
	}
	return loc.T("worker.event." + string(t))
}

// Part is one event of a structured line as a person reads it, before
// it is worded: its type and its detail as the worker said it. The
// controller sends parts rather than its own wording, so that each reader
// words them in its own language (see Part.Describe).
type Part struct {
	Type EventType `json:"type"`
	// Detail is what the event says: the text of progress and messages,
	// the tool and its argument, the session id, the retry's status and
	// attempt.
	Detail string `json:"detail,omitempty"`
	// Failed marks a failed tool call or result.
	Failed bool `json:"failed,omitempty"`
}

// PartOf returns what ev shows a person, or false for events with
// nothing to show (heartbeats).
func PartOf(ev Event) (Part, bool) {
	p := Part{Type: ev.Type, Detail: ev.Text}
	switch ev.Type {
	case EventHeartbeat:
		return Part{}, false
	case EventRetry:
		if ev.Retry != nil {
			p.Detail = RetryDetail(*ev.Retry)
		} else {
			p.Detail = OneLine(ev.Text, maxDetail)
		}
	case EventDenied:
		p.Detail = strings.TrimSpace(ev.Tool + " " + ev.Text)
	case EventTool, EventToolResult:
		p.Detail, p.Failed = strings.TrimSpace(ev.Tool+" "+ev.Text), ev.Failed
	case EventSession:
		p.Detail = ev.ID
	case EventResult:
		p.Failed = ev.Failed
	}
	return p, true
}

// PartsOf returns the parts of a structured record, or nil for a plain
// line (whose text is shown as it is).
func PartsOf(r Record) []Part {
	if len(r.Events) == 0 {
		return nil
	}
	parts := make([]Part, 0, len(r.Events))
	for _, ev := range r.Events {
		if p, ok := PartOf(ev); ok {
			parts = append(parts, p)
		}
	}
	return parts
}

// Describe words p in loc's language: the text of progress and messages
// as it is, other events labelled ("tool · edit main.go").
func (p Part) Describe(loc *i18n.Localizer) string {
	switch p.Type {
	case EventProgress, EventMessage:
		return p.Detail
	case EventRetry:
		return loc.T("worker.describe.retry", "Detail", p.Detail)
	}
	detail := p.Detail
	if p.Failed {
		detail = loc.T("worker.describe.failed", "Detail", detail)
	}
	label := EventLabel(loc, p.Type)
	if detail == "" {
		return label
	}
	return label + " · " + detail
}

// DescribeParts words the parts of one line, joined.
func DescribeParts(loc *i18n.Localizer, parts []Part) string {
	words := make([]string, 0, len(parts))
	for _, p := range parts {
		if s := p.Describe(loc); s != "" {
			words = append(words, s)
		}
	}
	return strings.Join(words, " · ")
}

// DescribeRecord renders a record for a person: its events when the line
// was structured (see Part.Describe), else its text. A record of heartbeats
// only renders as "".
func DescribeRecord(loc *i18n.Localizer, r Record) string {
	if len(r.Events) == 0 {
		return r.Text
	}
	return DescribeParts(loc, PartsOf(r))
}
