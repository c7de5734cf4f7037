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
	"github.com/daokit/daokit/worker"
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
// ledger's disk (an 8 MiB tmpfs) is full; the worker writes into its log
// itself, so its own writes fail. A new instruction is then refused with
// disk_full and the controller says so; nothing is lost. When space
// returns (the log is cut short) LEDGER_WRITES_HELD says what happened,
// what the worker writes next is read from the log's new end, the run
// ends once, and a new controller neither resumes nor repeats it.
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

	// The flood is over once its writes failed for lack of space.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling a file; the condition decides
		if _, err := os.Stat(flooded); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not finish its flood within 30s")
		}
	}
	// An instruction longer than a page needs a page the disk no longer
	// has, wherever the ledger's last page ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, err := h.client.Forward(ctx, "refused while the disk is full "+strings.Repeat("padding ", 1024))
	cancel()
	if relay.CodeOf(err) != codeDiskFull {
		t.Errorf("an instruction while the disk is full: %v, want %s", err, codeDiskFull)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	st, err := h.client.Observe(ctx)
	cancel()
	if err != nil || st.Controller.State != stateDiskFull {
		t.Errorf("the controller's state while the disk is full: %q (%v), want %s", st.Controller.State, err, stateDiskFull)
	}

	// Space returns: the flood's log is cut short.
	if err := os.Truncate(stdout, 0); err != nil {
		t.Fatal(err)
	}
	h.waitFor("LEDGER_WRITES_HELD", func(e ledger.Event) bool { return op(e) == opLedgerWritesHeld })
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
	if n := count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opRunFinished }); n != 1 {
		t.Errorf("the flooding run ended %d times, want once", n)
	}
	// What the worker wrote after space returned was read from the log's
	// new end.
	if out, err := os.ReadFile(stdout); err != nil || string(out) != "done\n" {
		t.Errorf("stdout.log after space returned: %q (%v), want the worker's last line", out, err)
	}
	if n := count(events, func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventStepCompleted
	}); n != 1 {
		t.Errorf("the flooding step completed %d times, want once", n)
	}
	if n := count(events, func(e ledger.Event) bool {
		return op(e) == opInstruction && strings.Contains(e.Payload.String("text"), "refused")
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
	log := filepath.Join(h.root, "artifacts", ack.TaskID, ack.RunID, "S1", "stdout.log")
	out, length, err := worker.ReadLog(log)
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
	// The logs sync while STEP_COMPLETED does: it says how long they are
	// (the cut left a hole at the head: the length is all the worker wrote).
	if n := payloadIntOf(done.Payload, "stdout_log_bytes"); int64(n) != length || n != 4000009 {
		t.Errorf("stdout_log_bytes %d, want the file's length %d, all the worker wrote", n, length)
	}
}

func payloadIntOf(o ledger.Object, key string) int { return payloadInt(o, key) }
