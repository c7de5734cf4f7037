package vocab

import (
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

// TestEveryValueHasBothLabels walks every vocabulary: a value without its
// label in one of the languages would show raw there (as nine reason
// codes once did in the window).
func TestEveryValueHasBothLabels(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		for _, k := range Kinds() {
			if len(k.Values) == 0 {
				t.Errorf("vocabulary %s is empty", k.Name)
			}
			seen := map[string]bool{}
			for _, v := range k.Values {
				if seen[v] {
					t.Errorf("%s: %s listed twice", k.Name, v)
				}
				seen[v] = true
				if !loc.Has(k.Catalog + v) {
					t.Errorf("%s: %s %s has no label %s%s", lang, k.Name, v, k.Catalog, v)
				}
			}
		}
		for _, id := range []string{ReasonCatalog + "no_output.h", ReasonCatalog + "no_output.m", ReasonCatalog + "no_output.s",
			ReasonCatalog + "no_action", ReasonCatalog + "invalid_lease", StepCatalog + "because"} {
			if !loc.Has(id) {
				t.Errorf("%s: no label %s", lang, id)
			}
		}
	}
}

// TestLabelsWordEveryValue checks the labels as callers get them: never
// the value itself, never a message id.
func TestLabelsWordEveryValue(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		check := func(kind, value, got string) {
			t.Helper()
			if got == "" || got == kindCatalog(kind)+value {
				t.Errorf("%s: %s %q is labelled %q", lang, kind, value, got)
			}
		}
		for _, r := range Reasons() {
			check("reason", string(r), r.Label(loc))
		}
		for _, s := range RunStates() {
			check("state", string(s), s.Label(loc))
		}
		for _, s := range Statuses() {
			check("status", string(s), s.Label(loc))
		}
		for _, h := range Healths() {
			check("health", string(h), h.Label(loc))
		}
		for _, n := range Nexts() {
			check("next", string(n), n.Label(loc))
		}
		for _, r := range Results() {
			check("result", string(r), r.Label(loc, "x"))
		}
		for _, s := range StepStates() {
			check("step", string(s), s.Label(loc))
		}
		for _, s := range LeaseStatuses() {
			check("lease", string(s), s.Label(loc))
		}
		for _, e := range EventTypes() {
			check("event", string(e), e.Label(loc))
		}
		for _, r := range []Reason{NoOutput(30, 'S'), NoOutput(2, 'M'), NoOutput(1, 'H'), NoAction("IDLE"), InvalidLease(LeaseExpired)} {
			if !r.Known() {
				t.Errorf("%s is not known", r)
			}
			if got := r.Label(loc); got == string(r) {
				t.Errorf("%s: %s shows raw", lang, r)
			}
		}
	}
}

func kindCatalog(name string) string {
	for _, k := range Kinds() {
		if k.Name == name {
			return k.Catalog
		}
	}
	return ""
}

// TestReasonLabelsAreDistinct: a person reading why a run stopped must be
// told which reason it is (a max-iterations block once read "too many
// restarts"), so no two codes share a label.
func TestReasonLabelsAreDistinct(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		var labels []string
		for _, r := range Reasons() {
			l := r.Label(loc)
			if slices.Contains(labels, l) {
				t.Errorf("%s: reason %s shares its label %q with another", lang, r, l)
			}
			labels = append(labels, l)
		}
	}
}

// TestUnknownValuesShowAsStored: a value from a newer daokit or another
// tool shows as it is stored, not as a message id.
func TestUnknownValuesShowAsStored(t *testing.T) {
	loc := i18n.MustNew(i18n.English)
	if got := Reason("SOMETHING_NEW").Label(loc); got != "SOMETHING_NEW" {
		t.Errorf("unknown reason: %q", got)
	}
	if got := RunState("newState").Label(loc); got != "newState" {
		t.Errorf("unknown state: %q", got)
	}
	if got := Result("nope").Label(loc, "d"); got != "nope" {
		t.Errorf("unknown result: %q", got)
	}
	if Reason("INVALID_LEASE_NOPE").Known() {
		t.Error("INVALID_LEASE_ of an unknown verdict is known")
	}
}

// TestResultWordsItsDetail: a refused /cancel of a blocked run says
// "blocked" in the reader's language, not the stored BLOCKED.
func TestResultWordsItsDetail(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		got := ResultNotRunning.Label(loc, string(StatusBlocked))
		want := StatusBlocked.Label(loc)
		if !strings.Contains(got, want) || strings.Contains(got, "BLOCKED") {
			t.Errorf("%s: not_running(BLOCKED) = %q, want it to contain %q and not BLOCKED", lang, got, want)
		}
		got = ResultNotWaiting.Label(loc, string(StateCompleted))
		if !strings.Contains(got, StateCompleted.Label(loc)) || (lang != i18n.English && strings.Contains(got, "completed")) {
			t.Errorf("%s: not_waiting(completed) = %q", lang, got)
		}
	}
}

// TestStepStateWordsItsArgument: a step blocked by a loop's last
// iteration is stored failed:max_iterations_reached; it reads as a failed
// step and why, in the reader's language. A lane is left to the stored
// value shown beside the label.
func TestStepStateWordsItsArgument(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		stored := StepFailed.With(string(ReasonMaxIterations))
		if string(stored) != "failed:max_iterations_reached" {
			t.Fatalf("stored as %q", stored)
		}
		got := stored.Label(loc)
		for _, want := range []string{StepFailed.Label(loc), ReasonMaxIterations.Label(loc)} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %s reads %q, want it to contain %q", lang, stored, got, want)
			}
		}
		if strings.Contains(got, "max_iterations") || strings.Contains(got, "restart") {
			t.Errorf("%s: %s reads %q", lang, stored, got)
		}
		if got := StepState("taken_over:HEARTBEAT_STALE").Label(loc); !strings.Contains(got, ReasonHeartbeatStale.Label(loc)) {
			t.Errorf("%s: taken_over:HEARTBEAT_STALE reads %q", lang, got)
		}
		if got := StepDispatched.With("coder").Label(loc); got != StepDispatched.Label(loc) {
			t.Errorf("%s: dispatched:coder reads %q", lang, got)
		}
		if got := StepState("someday:x").Label(loc); got != "someday:x" {
			t.Errorf("%s: an unknown step state reads %q", lang, got)
		}
	}
}
