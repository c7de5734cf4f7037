package worker

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

func TestLabelsInEveryLanguage(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc, err := i18n.New(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, et := range EventTypes() {
			if got := EventLabel(loc, et); got == "" || strings.HasPrefix(got, "worker.") {
				t.Errorf("%s: event %s has no label (%q)", lang, et, got)
			}
		}
		for _, c := range []StopCause{StopCancelled, StopTimeout, StopHung, StopLeaseLost} {
			if got := StopLabel(loc, c); got == "" || strings.HasPrefix(got, "worker.") {
				t.Errorf("%s: stop cause %s has no label (%q)", lang, c, got)
			}
		}
		for _, s := range []Stream{Stdout, Stderr} {
			if got := StreamLabel(loc, s); got == "" || strings.HasPrefix(got, "worker.") {
				t.Errorf("%s: stream %s has no label (%q)", lang, s, got)
			}
		}
		notes := Notes(loc, Record{Dropped: 3, Truncated: true, Size: 70000, Status: StatusMalformed})
		if len(notes) != 3 || !strings.Contains(notes[0], "3") || !strings.Contains(notes[1], "70000") {
			t.Errorf("%s: notes %q", lang, notes)
		}
	}
	en := i18n.MustNew(i18n.English)
	if EventLabel(en, "telepathy") != "telepathy" || StopLabel(en, StopNone) != "" {
		t.Error("unknown values must show as they are")
	}
	if got := Notes(en, Record{Status: StatusUnknown}); len(got) != 1 || got[0] != "unknown worker message" {
		t.Errorf("unknown note: %q", got)
	}
}
