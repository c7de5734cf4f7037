package component

import (
	"strings"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
)

// Label kinds: the catalog prefix of each vocabulary of stored values.
// A value's label is the message "<kind>.<value>". The words the
// controller writes (reasons, states, operations, …) are package vocab's,
// with its catalog ids, so that the window, the CLI and the controller
// say the same thing and a new code is labelled everywhere at once.
const (
	KindPipeline   = "vocab.status"
	KindHeartbeat  = "vocab.health"
	KindLease      = "vocab.lease"
	KindSeverity   = "vocab.severity"
	KindEvent      = "vocab.event"
	KindNext       = "vocab.next"
	KindReason     = "vocab.reason"
	KindStep       = "vocab.step"
	KindRun        = "vocab.state"
	KindController = "vocab.controller"
	KindOperation  = "vocab.op"
	// KindCriterion labels what a step's acceptance checked (its
	// ACCEPTANCE_PASSED's criterion).
	KindCriterion = "vocab.criterion"
)

// vocabularies lists the stored values the catalogs label: every one of
// package vocab's vocabularies under its catalog (a kind is its catalog
// without the final dot), so that a value vocab adds is labelled in the
// window at once, and the relay's error codes, which are the window's
// link's, not the ledger's. Values stay on screen as they are stored; the
// label is extra text in the person's language. A value missing here
// (written by another tool) shows raw.
var vocabularies = func() map[string][]string {
	m := map[string][]string{
		KindRelayError: {"bad_version", "malformed", "too_large", "unknown_type", "forbidden_peer",
			"forbidden_action", "bad_request", "internal", "unavailable", "wrong_root", "closed", "timeout", "lost",
			"unsupported"},
	}
	for _, k := range vocab.Kinds() {
		m[strings.TrimSuffix(k.Catalog, ".")] = k.Values
	}
	return m
}()

// Labels renders stored values in the person's language. Every label of
// the vocabularies is rendered once, when the language is chosen, so that
// drawing thousands of event rows never runs a template.
type Labels struct {
	loc *i18n.Localizer
	m   map[string]string
}

// NewLabels renders the vocabularies with loc.
func NewLabels(loc *i18n.Localizer) *Labels {
	l := &Labels{loc: loc, m: make(map[string]string)}
	for kind, values := range vocabularies {
		for _, v := range values {
			id := kind + "." + v
			if s := loc.T(id); s != id {
				l.m[id] = s
			}
		}
	}
	return l
}

// Get returns the label of value in kind, or "" when the catalogs have
// none (the caller then shows the value alone).
func (l *Labels) Get(kind, value string) string {
	if value == "" {
		return ""
	}
	if s, ok := l.m[kind+"."+value]; ok {
		return s
	}
	if kind == KindReason {
		return l.reason(value)
	}
	if kind == KindStep {
		// A state with its argument (failed:max_iterations_reached,
		// dispatched:coder): vocab words both.
		if st := vocab.StepState(value); st.Known() {
			return st.Label(l.loc)
		}
	}
	return ""
}

// Or returns the label of value, or value itself when there is none.
func (l *Labels) Or(kind, value string) string {
	if s := l.Get(kind, value); s != "" {
		return s
	}
	return value
}

// reason labels the reason codes that carry an argument
// (NO_OUTPUT_<n><unit>, HEARTBEAT_<status>_NO_ACTION,
// INVALID_LEASE_<verdict>), which vocab words.
func (l *Labels) reason(code string) string {
	if r := vocab.Reason(code); r.Known() {
		return r.Label(l.loc)
	}
	return ""
}
