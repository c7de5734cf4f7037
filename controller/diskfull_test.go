package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// smallDisk mounts a tmpfs of size bytes on a fresh folder for the test,
// or skips the test when it cannot (not root, no mount permission).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; the disk-full test runs as root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs (%v); the disk-full test needs one", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// TestDiskFilledByAFloodingWorker: a worker floods its output until the
// ledger's disk (an 8 MiB tmpfs) is full. Meanwhile a new instruction is
// refused with disk_full and the controller says so; the run's events are
// held, not lost. When space returns the held events are written in
// order, LEDGER_WRITES_HELD says what happened, the run ends once, and a
// new controller neither resumes nor repeats it.
func TestDiskFilledByAFloodingWorker(t *testing.T) {
	root := smallDisk(t, "8m")
	side := t.TempDir() // on the real disk: the worker's signals to the test
	fifo, flooded := filepath.Join(side, "go"), filepath.Join(side, "flooded")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := shellConfig(`read line; case "$line" in flood*) head -c 12000000 /dev/zero | tr '\0' 'x'; echo; : > ` + flooded + `; read go < ` + fifo + `;; esac; echo done`)
	cfg.Lanes[0].LogLimit = 64 << 20 // larger than the disk: the flood fills it
	// The worker waits silently for the test; it must not be judged hung.
	cfg.Heartbeat.WarningAfter = config.Duration(time.Minute)
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Minute)
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, root, cfg)
	ack := h.forward("flood the disk")
	stdout := filepath.Join(root, "artifacts", ack.TaskID, ack.RunID, "S1", "stdout.log")

	// Wait until the controller says the disk is full.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := h.client.Observe(ctx)
		cancel()
		if err == nil && st.Controller.State == stateDiskFull {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the controller did not report a full disk within 30s (state %q, %v)", st.Controller.State, err)
		}
		time.Sleep(20 * time.Millisecond) // polling the controller; the condition decides
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, err := h.client.Forward(ctx, "refused while the disk is full")
	cancel()
	if relay.CodeOf(err) != codeDiskFull {
		t.Errorf("an instruction while the disk is full: %v, want %s", err, codeDiskFull)
	}

	// Space returns once the flood is over: its log is emptied, then the
	// worker finishes.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling a file; the condition decides
		if _, err := os.Stat(flooded); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not finish its flood within 30s")
		}
	}
	if err := os.Truncate(stdout, 0); err != nil {
		t.Fatal(err)
	}
	h.waitFor("LEDGER_WRITES_HELD", func(e ledger.Event) bool { return op(e) == OpLedgerWritesHeld })
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	end := h.finished(ack.TaskID)
	if end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	h.stop()

	h = startHarness(t, root, cfg)
	again := h.forward("after the disk had room")
	h.finished(again.TaskID)
	events := h.events()
	if n := count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && e.EventType == ledger.EventStepStarted }); n != 1 {
		t.Errorf("the flooding run started %d times, want once", n)
	}
	if n := count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpRunFinished }); n != 1 {
		t.Errorf("the flooding run ended %d times, want once", n)
	}
	for _, e := range events {
		// The flood's log could not be written whole: its end says so.
		if e.TaskID == ack.TaskID && e.EventType == ledger.EventStepCompleted &&
			!strings.Contains(e.Payload.String("artifact_error"), "no space left") {
			t.Errorf("the flooding step's STEP_COMPLETED has artifact_error %q, want the log's write error", e.Payload.String("artifact_error"))
		}
	}
	if n := count(events, func(e ledger.Event) bool {
		return op(e) == OpInstruction && strings.Contains(e.Payload.String("text"), "refused")
	}); n != 0 {
		t.Errorf("%d refused instructions were recorded", n)
	}
	for _, e := range events {
		if err := e.Validate(); err != nil {
			t.Errorf("event %s: %v", e.EventID, err)
		}
	}
}

// TestFloodingWorkerLogIsCapped: with a lane's log_limit, a worker that
// prints far more keeps only the newest bytes in stdout.log, and the
// step's end records how many were cut and how long the log is.
func TestFloodingWorkerLogIsCapped(t *testing.T) {
	t.Parallel()
	cfg := shellConfig(`read line; head -c 4000000 /dev/zero | tr '\0' 'x'; echo; echo the end`)
	cfg.Lanes[0].LogLimit = 256 << 10
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("flood")
	h.finished(ack.TaskID)
	out, err := os.ReadFile(filepath.Join(h.root, "artifacts", ack.TaskID, ack.RunID, "S1", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 256<<10 || !strings.HasSuffix(string(out), "x\nthe end\n") {
		t.Errorf("stdout.log has %d bytes ending %q, want at most 256 KiB ending with the last line", len(out), out[max(len(out)-20, 0):])
	}
	done := h.waitFor("STEP_COMPLETED", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventStepCompleted
	})
	if cut := payloadIntOf(done.Payload, "log_cut_bytes"); cut != 4000000+len("\nthe end\n")-len(out) {
		t.Errorf("log_cut_bytes %d, want %d", cut, 4000000+len("\nthe end\n")-len(out))
	}
	// The logs sync while STEP_COMPLETED does: it says how long they are.
	if n := payloadIntOf(done.Payload, "stdout_log_bytes"); n != len(out) {
		t.Errorf("stdout_log_bytes %d, want the file's %d", n, len(out))
	}
}

func payloadIntOf(o ledger.Object, key string) int { return payloadInt(o, key) }
