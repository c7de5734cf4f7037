package controller

import (
	"context"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/worker/transcript"
)

// TestOutputNoticesCarryWhatToWord: the controller words a worker's
// structured line in its own language for older clients, and sends the
// line's parts with it, so that each window words it in its reader's
// language (a Chinese controller's "会话 · …" once reached English
// windows as it was).
func TestOutputNoticesCarryWhatToWord(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), shellConfig(`echo '@daokit {"type":"session","id":"sess-7"}'; echo plain words`))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.client.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	h.forward("x")
	en, zh := i18n.MustNew(i18n.English), i18n.MustNew(i18n.Chinese)
	var session, plain *relay.OutputLine
	for session == nil || plain == nil {
		select {
		case n := <-h.client.Notices():
			if n.Kind != relay.NoticeWorkerOutput || n.Output == nil {
				continue
			}
			switch o := n.Output; {
			case len(o.Parts) > 0:
				session = o
			case o.Line == "plain words":
				plain = o
			}
		case <-ctx.Done():
			t.Fatalf("no output notices (session %v, plain %v)", session, plain)
		}
	}
	if want := []relay.OutputPart{{Type: string(transcript.EventSession), Detail: "sess-7"}}; len(session.Parts) != 1 || session.Parts[0] != want[0] {
		t.Fatalf("parts %+v, want %+v", session.Parts, want)
	}
	if session.Line != say.FromRelay(*session).Words(en) {
		t.Errorf("the controller (en) worded %q, its parts read %q", session.Line, say.FromRelay(*session).Words(en))
	}
	if got, want := say.FromRelay(*session).Words(zh), transcript.EventLabel(zh, transcript.EventSession)+" · sess-7"; got != want {
		t.Errorf("in Chinese the line reads %q, want %q", got, want)
	}
	if say.FromRelay(*plain).Words(zh) != "plain words" {
		t.Errorf("a plain line reads %q in Chinese", say.FromRelay(*plain).Words(zh))
	}
}
