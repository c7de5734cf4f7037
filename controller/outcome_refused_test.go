package controller

import (
	"bytes"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// failOutcomeSync is an fdatasync that fails once with EIO (a dying
// disk) when the lines it would make durable hold a step's end, and
// succeeds otherwise.
func failOutcomeSync(failed *atomic.Bool) func(*os.File) error {
	return func(f *os.File) error {
		if !failed.Load() {
			st, err := f.Stat()
			if err != nil {
				return err
			}
			tail := make([]byte, min(st.Size(), 64<<10))
			if _, err := f.ReadAt(tail, st.Size()-int64(len(tail))); err != nil {
				return err
			}
			if bytes.Contains(tail, []byte(`"`+ledger.EventStepCompleted+`"`)) && failed.CompareAndSwap(false, true) {
				return syscall.EIO
			}
		}
		return syscall.Fdatasync(int(f.Fd()))
	}
}

// TestRefusedOutcomeFailsTheStep: a step in its own worktree does its
// work, but the ledger refuses its end (the write's fdatasync fails with
// EIO, and the ledger cuts the lines back). The step fails with
// LEDGER_WRITE_FAILED, once (not restarted), instead of waiting for a
// review whose change the ledger never recorded.
func TestRefusedOutcomeFailsTheStep(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	var failed atomic.Bool
	root := t.TempDir()
	h := startHarnessWith(t, Options{Root: root, Config: worktreeConfig(repo, editScript), SyncData: failOutcomeSync(&failed)})
	ack := h.forward("note this")
	end, ends, starts := ran(h, ack.TaskID)
	if !failed.Load() {
		t.Fatal("no step end reached the disk to be refused")
	}
	if s, r := end.Payload.String("status"), end.Payload.String("reason_code"); s != ledger.StatusFailed || r != ReasonLedgerWrite {
		t.Fatalf("run ended %s %s, want FAILED %s", s, r, ReasonLedgerWrite)
	}
	if starts != 1 || len(ends) != 1 || ends[0].Payload.String("reason_code") != ReasonLedgerWrite {
		t.Fatalf("%d attempts, step ends %v; want one, failed with %s", starts, ends, ReasonLedgerWrite)
	}
	if !strings.Contains(ends[0].Payload.String("ledger_error"), "input/output error") {
		t.Errorf("ledger_error %q does not say why", ends[0].Payload.String("ledger_error"))
	}
	for _, e := range h.events() {
		if e.TaskID == ack.TaskID && (e.EventType == ledger.EventStepCompleted || op(e) == OpReviewPending) {
			t.Fatalf("%s %s recorded for the refused outcome", e.EventType, op(e))
		}
	}
}
