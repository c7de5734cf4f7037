package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/relay/relaytest"
)

// TestLongestInstructionSurvivesSIGKILL: an acknowledged instruction of
// any size the relay accepts is found again by the next controller after
// a SIGKILL. The case is 175,000 CJK characters (a ledger line
// over 1 MiB, which recovery skipped, so that the resend ran again); the
// longest is a protocol line at the relay's cap of astral characters,
// which the ledger escapes to three times its size. Each is resent to the
// new controller: the original acknowledgement comes back, and each runs
// once.
func TestLongestInstructionSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	root := newRoot(t, drillTimings+`
[[lanes]]
name = "worker"
kind = "command"
command = ["sh", "-c", "wc -c"]
stdin = true
stop_grace = "200ms"
`)
	// The envelope around the text takes well under 512 bytes.
	texts := map[string]string{
		"cjk-175k":   strings.Repeat("字", 175_000),
		"astral-max": strings.Repeat("𝄞", (relay.DefaultMaxLine-512)/4),
	}
	ctl := startController(t, root)
	client := dialRoot(t, root)
	acks := map[string]relay.Ack{}
	for id, text := range texts {
		acks[id] = relaytest.SendInstruction(t, client, id, text, 60*time.Second)
	}
	ctl.kill()
	client.Close()
	st, err := os.Stat(filepath.Join(root, ledger.StateDir, ledger.EventsFile))
	if err != nil || st.Size() < 4<<20 {
		t.Fatalf("events.jsonl holds %v bytes (%v): the instructions' lines are not as long as this test means them", st.Size(), err)
	}

	ctl = startController(t, root)
	defer ctl.stop()
	client = dialRoot(t, root)
	defer client.Close()
	for id, text := range texts {
		again := relaytest.SendInstruction(t, client, id, text, 60*time.Second)
		if !again.Duplicate || again.EventID != acks[id].EventID || again.TaskID != acks[id].TaskID {
			t.Errorf("resent %s after the SIGKILL: %+v, want the original acknowledgement %+v", id, again, acks[id])
		}
	}
	for id, ack := range acks {
		waitEvent(t, root, "RUN_FINISHED of "+id, 60*time.Second, func(e ledger.Event) bool {
			return e.TaskID == ack.TaskID && op(e) == "RUN_FINISHED"
		})
	}
	received, finished := map[string]int{}, map[string]int{}
	for _, e := range events(t, root) {
		switch op(e) {
		case "INSTRUCTION_RECEIVED":
			received[e.Payload.String("message_id")]++
			if id := e.Payload.String("message_id"); e.Payload.String("text") != texts[id] {
				t.Errorf("instruction %s recorded with a text of %d bytes, want %d", id, len(e.Payload.String("text")), len(texts[id]))
			}
		case "RUN_FINISHED":
			finished[e.TaskID]++
		}
	}
	for id, ack := range acks {
		if received[id] != 1 || finished[ack.TaskID] != 1 {
			t.Errorf("%s: recorded %d times, finished %d times; want once each", id, received[id], finished[ack.TaskID])
		}
	}
}

// dialRoot connects to root's controller.
func dialRoot(t testing.TB, root string) *relay.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	return client
}
