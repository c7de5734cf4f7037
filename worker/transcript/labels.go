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

// StopLabel names why daokit stopped a worker, or "" when it did not.
func StopLabel(loc *i18n.Localizer, c StopCause) string {
	switch c {
	case StopCancelled, StopTimeout, StopHung, StopLeaseLost, StopAgentFailed:
		return loc.T("worker.stop." + string(c))
	}
	return string(c)
}

// StreamLabel names an output stream.
func StreamLabel(loc *i18n.Localizer, s Stream) string {
	if s != Stdout && s != Stderr {
		return string(s)
	}
	return loc.T("worker.stream." + string(s))
}

// Notes returns what a person reading a record should know besides its
// text, in loc's language: lines dropped before it, a cut, a structured
// line that could not be read.
func Notes(loc *i18n.Localizer, r Record) []string {
	var notes []string
	if r.Dropped > 0 {
		notes = append(notes, loc.T("worker.line.dropped", "Count", r.Dropped))
	}
	if r.Truncated {
		notes = append(notes, loc.T("worker.line.truncated", "Size", r.Size))
	}
	switch r.Status {
	case StatusUnknown:
		notes = append(notes, loc.T("worker.line.unknown"))
	case StatusMalformed:
		notes = append(notes, loc.T("worker.line.malformed"))
	}
	return notes
}

// Describe renders what a worker said as one line for a person: the text
// of progress and messages as they are, other events labelled ("tool ·
// edit main.go"). It returns "" for events with nothing to show
// (heartbeats), so that callers can skip them.
func Describe(loc *i18n.Localizer, ev Event) string {
	switch ev.Type {
	case EventHeartbeat:
		return ""
	case EventProgress, EventMessage:
		return ev.Text
	case EventRetry:
		return describeRetry(loc, ev)
	}
	detail := ev.Text
	switch ev.Type {
	case EventDenied:
		detail = strings.TrimSpace(ev.Tool + " " + ev.Text)
	case EventTool, EventToolResult:
		detail = strings.TrimSpace(ev.Tool + " " + ev.Text)
		if ev.Failed {
			detail = loc.T("worker.describe.failed", "Detail", detail)
		}
	case EventSession:
		detail = ev.ID
	case EventResult:
		if ev.Failed {
			detail = loc.T("worker.describe.failed", "Detail", detail)
		}
	}
	label := EventLabel(loc, ev.Type)
	if detail == "" {
		return label
	}
	return label + " · " + detail
}

// DescribeRecord renders a record for a person: its events when the line
// was structured (see Describe), else its text. A record of heartbeats
// only renders as "".
func DescribeRecord(loc *i18n.Localizer, r Record) string {
	if len(r.Events) == 0 {
		return r.Text
	}
	var parts []string
	for _, ev := range r.Events {
		if s := Describe(loc, ev); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}
