package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// Ids a client chooses are refused over the socket before anything is
// recorded or started, and no folder appears outside the root.
func TestClientIDsAreValidated(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, root, shellConfig("echo ok"))
	bad := []string{"../../escape", "..", "a/b", "/abs", ".hidden", "-x", "sp ace", ""}
	for i, id := range bad {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		env := relay.Envelope{ID: relay.NewID(), Type: relay.TypeInstruction, Action: relay.ActionForward}
		in := relay.Instruction{Text: "hello", TaskID: id, RunID: "R1"}
		if i%2 == 1 {
			in.TaskID, in.RunID = "T1", id
		}
		if err := env.SetBody(in); err != nil {
			t.Fatal(err)
		}
		_, err := h.client.Send(ctx, env)
		cancel()
		if id == "" {
			continue // not given: the controller picks the id
		}
		var re *relay.Error
		if !errors.As(err, &re) || re.Code != codeInvalidID {
			t.Errorf("instruction with id %q: %v, want %s", id, err, codeInvalidID)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		_, err = h.client.Control(ctx, relay.Control{Kind: relay.ControlCancel, StepID: id})
		cancel()
		if !errors.As(err, &re) || re.Code != codeInvalidID {
			t.Errorf("control with step id %q: %v, want %s", id, err, codeInvalidID)
		}
	}
	h.stop()
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 {
		t.Fatalf("folders next to the root: %v", entries)
	}
	for _, e := range h.events() {
		if e.TaskID != "" && e.TaskID != "T1" && !ledger.ValidID(e.TaskID) {
			t.Errorf("an event recorded the invalid task id %q", e.TaskID)
		}
	}
}
