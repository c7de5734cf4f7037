package transcript

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
	}
	en := i18n.MustNew(i18n.English)
	if EventLabel(en, "telepathy") != "telepathy" {
		t.Error("unknown values must show as they are")
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	en := i18n.MustNew(i18n.English)
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Type: EventHeartbeat}, ""},
		{Event{Type: EventProgress, Text: "Reading main.go"}, "Reading main.go"},
		{Event{Type: EventTool, Tool: "edit", Text: "main.go"}, "tool · edit main.go"},
		{Event{Type: EventToolResult, Tool: "bash", Text: "go test", Failed: true}, "tool result · bash go test (failed)"},
		{Event{Type: EventSession, ID: "abc"}, "session · abc"},
		{Event{Type: EventResult, Text: "2 files changed"}, "result · 2 files changed"},
		{Event{Type: EventError, Text: "rate limited"}, "error · rate limited"},
	}
	for _, tt := range tests {
		if got := wordEvent(en, tt.ev); got != tt.want {
			t.Errorf("Describe(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
	if got := DescribeRecord(en, Record{Text: `@daokit {"type":"heartbeat"}`, Events: []Event{{Type: EventHeartbeat}}}); got != "" {
		t.Errorf("heartbeat record renders %q, want nothing", got)
	}
	if got := DescribeRecord(en, Record{Text: "plain"}); got != "plain" {
		t.Errorf("plain record renders %q", got)
	}
	zh := i18n.MustNew(i18n.Chinese)
	if got := wordEvent(zh, Event{Type: EventResult, Text: "x", Failed: true}); !strings.Contains(got, "失败") {
		t.Errorf("Chinese: %q", got)
	}
}

// wordEvent renders what a worker said as one line for a person: the text
// of progress and messages as they are, other events labelled ("tool ·
// edit main.go"). It returns "" for events with nothing to show
// (heartbeats), so that callers can skip them.
func wordEvent(loc *i18n.Localizer, ev Event) string {
	p, ok := PartOf(ev)
	if !ok {
		return ""
	}
	return p.Describe(loc)
}
