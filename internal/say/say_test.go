package say

import (
	"testing"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// TestOutputLineTextFollowsTheReader: a line's reason, message and parts
// are worded in the reader's language; a plain line, and a message the
// reader's catalogs do not know (a newer controller's), read as the
// controller worded them.
func TestOutputLineTextFollowsTheReader(t *testing.T) {
	t.Parallel()
	en, zh := i18n.MustNew(i18n.English), i18n.MustNew(i18n.Chinese)
	for _, tc := range []struct {
		name string
		line relay.OutputLine
		en   string
		zh   string
	}{
		{"plain", relay.OutputLine{Line: "go test ok"}, "go test ok", "go test ok"},
		{"reason", relay.OutputLine{Line: "x", Reason: string(vocab.ReasonMergeConflict)},
			vocab.ReasonMergeConflict.Label(en), vocab.ReasonMergeConflict.Label(zh)},
		{"message", relay.OutputLine{Line: "x", Message: "controller.budget.retry_unlimited", Args: map[string]string{"Spent": "$2.0000"}},
			en.T("controller.budget.retry_unlimited", "Spent", "$2.0000"), zh.T("controller.budget.retry_unlimited", "Spent", "$2.0000")},
		{"unknown message", relay.OutputLine{Line: "as said", Message: "controller.from_the_future"}, "as said", "as said"},
		{"parts", relay.OutputLine{Line: "x", Parts: []relay.OutputPart{{Type: "tool", Detail: "edit a.go", Failed: true}}},
			transcript.Part{Type: transcript.EventTool, Detail: "edit a.go", Failed: true}.Describe(en),
			transcript.Part{Type: transcript.EventTool, Detail: "edit a.go", Failed: true}.Describe(zh)},
	} {
		if got := FromRelay(tc.line).Words(en); got != tc.en {
			t.Errorf("%s en: %q, want %q", tc.name, got, tc.en)
		}
		if got := FromRelay(tc.line).Words(zh); got != tc.zh {
			t.Errorf("%s zh: %q, want %q", tc.name, got, tc.zh)
		}
	}
	if a, b := FromRelay(relay.OutputLine{Reason: string(vocab.ReasonMergeConflict)}).Words(en), FromRelay(relay.OutputLine{Reason: string(vocab.ReasonMergeConflict)}).Words(zh); a == b {
		t.Errorf("a reason reads the same in both languages: %q", a)
	}
}

// TestPartsCrossTheRelay: the parts the controller sends are the parts
// the reader words.
func TestPartsCrossTheRelay(t *testing.T) {
	t.Parallel()
	parts := transcript.PartsOf(transcript.Record{Events: []transcript.Event{
		{Type: transcript.EventHeartbeat},
		{Type: transcript.EventSession, ID: "s1"},
		{Type: transcript.EventToolResult, Tool: "Bash", Text: "go test", Failed: true},
	}})
	back := FromRelay(relay.OutputLine{Parts: ToRelay(parts)}).Parts
	if len(back) != 2 || back[0] != parts[0] || back[1] != parts[1] {
		t.Fatalf("parts %+v came back as %+v", parts, back)
	}
	if ToRelay(nil) != nil || FromRelay(relay.OutputLine{Line: "x"}).Parts != nil {
		t.Error("a plain line grew parts")
	}
}
