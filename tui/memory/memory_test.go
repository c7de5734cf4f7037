package memory

import (
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/input"
)

func TestRoundTripAndBounds(t *testing.T) {
	t.Parallel()
	var conv []conversation.Saved
	for i := range conversation.MaxSaved + 10 {
		conv = append(conv, conversation.Saved{Kind: conversation.KindUser, At: time.Unix(int64(i), 0).UTC(), Text: "修复 " + string(rune('a'+i%26))})
	}
	hist := make([]string, input.MaxHistory+5)
	for i := range hist {
		hist[i] = "msg"
	}
	hist[len(hist)-1] = "newest"
	s, err := Parse(Encode(conv, hist))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conversation) != conversation.MaxSaved || !s.Conversation[len(s.Conversation)-1].At.Equal(conv[len(conv)-1].At) {
		t.Errorf("kept %d entries, want the newest %d", len(s.Conversation), conversation.MaxSaved)
	}
	if len(s.History) != input.MaxHistory || s.History[len(s.History)-1] != "newest" {
		t.Errorf("kept %d messages", len(s.History))
	}
	if _, err := Parse([]byte(`{"version":99}`)); err != ErrVersion {
		t.Errorf("another version: %v", err)
	}
	if _, err := Parse([]byte(`{"version":`)); err == nil {
		t.Error("a torn file parsed")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Encode([]conversation.Saved{{Kind: conversation.KindSystem, ID: "tui.conversation.started", Args: []string{"PID", "1"}}}, []string{"hi"}))
	f.Add([]byte(`{"version":1,"conversation":[{"kind":7,"labeled":["State"]}],"history":null}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if len(s.Conversation) > conversation.MaxSaved || len(s.History) > input.MaxHistory {
			t.Fatalf("unbounded: %d entries, %d messages", len(s.Conversation), len(s.History))
		}
		if _, err := Parse(Encode(s.Conversation, s.History)); err != nil {
			t.Fatalf("re-encoded memory does not parse: %v", err)
		}
	})
}
