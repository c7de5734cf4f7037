package relay

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
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
		line OutputLine
		en   string
		zh   string
	}{
		{"plain", OutputLine{Line: "go test ok"}, "go test ok", "go test ok"},
		{"reason", OutputLine{Line: "x", Reason: string(vocab.ReasonMergeConflict)},
			vocab.ReasonMergeConflict.Label(en), vocab.ReasonMergeConflict.Label(zh)},
		{"message", OutputLine{Line: "x", Message: "controller.budget.retry_unlimited", Args: map[string]string{"Spent": "$2.0000"}},
			en.T("controller.budget.retry_unlimited", "Spent", "$2.0000"), zh.T("controller.budget.retry_unlimited", "Spent", "$2.0000")},
		{"unknown message", OutputLine{Line: "as said", Message: "controller.from_the_future"}, "as said", "as said"},
		{"parts", OutputLine{Line: "x", Parts: []transcript.Part{{Type: transcript.EventTool, Detail: "edit a.go", Failed: true}}},
			transcript.Describe(en, transcript.Event{Type: transcript.EventTool, Tool: "edit", Text: "a.go", Failed: true}),
			transcript.Describe(zh, transcript.Event{Type: transcript.EventTool, Tool: "edit", Text: "a.go", Failed: true})},
	} {
		if got := tc.line.Text(en); got != tc.en {
			t.Errorf("%s en: %q, want %q", tc.name, got, tc.en)
		}
		if got := tc.line.Text(zh); got != tc.zh {
			t.Errorf("%s zh: %q, want %q", tc.name, got, tc.zh)
		}
	}
	if a, b := (OutputLine{Reason: string(vocab.ReasonMergeConflict)}).Text(en), (OutputLine{Reason: string(vocab.ReasonMergeConflict)}).Text(zh); a == b {
		t.Errorf("a reason reads the same in both languages: %q", a)
	}
}

// TestLongStructuredOutputKeepsItsLine: a structured line over the line
// cap goes as the controller's wording, cut, without its parts, instead
// of being refused as too large.
func TestLongStructuredOutputKeepsItsLine(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", testMaxLine)
	out := &OutputLine{Line: "message · " + long, Parts: []transcript.Part{{Type: transcript.EventMessage, Detail: long}}}
	if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: out}); err != nil {
		t.Fatal(err)
	}
	n := nextOutput(t, c)
	if !n.Output.Truncated || n.Output.Parts != nil || !strings.HasPrefix(out.Line, n.Output.Line) || n.Output.Line == "" {
		t.Fatalf("got %+v, want a cut line without parts", n.Output)
	}
}
