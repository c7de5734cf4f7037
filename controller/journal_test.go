package controller

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// journalOn opens root's store and index as a controller does, with a
// journal of its own whose errors and disk-full changes the test hears.
func journalOn(t *testing.T, root string) (*Controller, *journal, *journalEars) {
	t.Helper()
	c, err := open(Options{Root: root, Config: shellConfig("true")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	c.journal.close()
	ears := &journalEars{full: make(chan bool, 8)}
	j := newJournal(c.store, c.index.x, time.Now, ears.err, func(full bool) { ears.full <- full })
	t.Cleanup(func() { c.store.Close() })
	return c, j, ears
}

// journalEars is what a test journal reports.
type journalEars struct {
	mu   sync.Mutex
	errs []error
	full chan bool
}

func (e *journalEars) err(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, err)
}

func (e *journalEars) errors() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.errs)
}

// logIDs returns the ids of the events in root's log with the operation
// op, in log order.
func logIDs(t *testing.T, root, operation string) []string {
	t.Helper()
	tail, err := ledger.TailEvents(ledger.Layout{Root: root}.Events(), 1<<22)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range tail.Events {
		if op(e) == operation {
			ids = append(ids, e.EventID)
		}
	}
	return ids
}

func outputEvent(f eventFactory, line string) ledger.Event {
	return f.system("DK-1", "run-1", "S1", ledger.SeverityInfo, opWorkerOutput, "lines", []any{line})
}

// TestPostedEventsKeepTheirPlace: posted events are written in order with
// appended ones, and an append that returns proves every event posted
// before it durable (they are in the log by then).
func TestPostedEventsKeepTheirPlace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, j, ears := journalOn(t, root)
	var want []string
	for round := range 3 {
		for range 5 {
			e := outputEvent(c.events, "posted")
			want = append(want, e.EventID)
			if err := j.post(e); err != nil {
				t.Fatal(err)
			}
		}
		e := outputEvent(c.events, "appended")
		want = append(want, e.EventID)
		if err := j.append(e); err != nil {
			t.Fatal(err)
		}
		if got := logIDs(t, root, opWorkerOutput); !slices.Equal(got, want) {
			t.Fatalf("round %d: the log holds %d events %v after the append returned, want %d in order %v", round, len(got), got, len(want), want)
		}
	}
	j.close()
	if errs := ears.errors(); len(errs) > 0 {
		t.Errorf("journal errors: %v", errs)
	}
}

// TestPostedEventsAloneAreWritten: with no append after them, posted
// events still reach the log (after postLinger), and close writes what
// is still queued.
func TestPostedEventsAloneAreWritten(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, j, _ := journalOn(t, root)
	first := outputEvent(c.events, "alone")
	if err := j.post(first); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polling the log; the condition decides
		if slices.Contains(logIDs(t, root, opWorkerOutput), first.EventID) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a posted event was not written within 10s")
		}
	}
	last := outputEvent(c.events, "at close")
	if err := j.post(last); err != nil {
		t.Fatal(err)
	}
	j.close()
	if got := logIDs(t, root, opWorkerOutput); !slices.Equal(got, []string{first.EventID, last.EventID}) {
		t.Errorf("log %v, want both posted events", got)
	}
}

// TestAnEventTooLongIsRefusedAlone: an append whose event would make a
// line over ledger.MaxLineBytes fails with ErrTooLarge, while the events
// posted around it, encoded and waiting in the same batch, are written in
// order.
func TestAnEventTooLongIsRefusedAlone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, j, ears := journalOn(t, root)
	before, after := outputEvent(c.events, "before"), outputEvent(c.events, "after")
	huge := outputEvent(c.events, strings.Repeat("x", ledger.MaxLineBytes))
	if err := j.post(before); err != nil {
		t.Fatal(err)
	}
	if err := j.append(huge); !errors.Is(err, ledger.ErrTooLarge) {
		t.Errorf("append of a line over MaxLineBytes = %v, want ErrTooLarge", err)
	}
	if err := j.post(after); err != nil {
		t.Fatal(err)
	}
	j.close()
	if got, want := logIDs(t, root, opWorkerOutput), []string{before.EventID, after.EventID}; !slices.Equal(got, want) {
		t.Errorf("log %v, want %v: the events around the refused one, in order", got, want)
	}
	if errs := ears.errors(); len(errs) > 0 {
		t.Errorf("journal errors: %v", errs)
	}
}

// TestWrittenEventsReturnBeforeTheirSync: appendWritten returns once its
// events are in the file, while their fsync still waits; an append after
// it returns only once that fsync is done, so whatever is recorded after
// written events is durable only with them.
func TestWrittenEventsReturnBeforeTheirSync(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, j, ears := journalOn(t, root)
	j.close()
	c.store.Close() // its lock: the gated store below takes the root
	gate, syncing := make(chan struct{}), make(chan struct{}, 16)
	store, err := ledger.Open(root, ledger.Options{SyncData: func(f *os.File) error {
		syncing <- struct{}{}
		<-gate
		return f.Sync()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	j = newJournal(store, c.index.x, time.Now, ears.err, func(bool) {})
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate) // a failed test must not leave the journal stuck
		}
		j.close()
	})

	written := outputEvent(c.events, "written")
	returned := make(chan error, 1)
	go func() { returned <- j.appendWritten(written) }()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("appendWritten waits for its fsync")
	}
	<-syncing // its fsync began and waits at the gate
	if got := logIDs(t, root, opWorkerOutput); !slices.Equal(got, []string{written.EventID}) {
		t.Fatalf("the log holds %v when appendWritten returned, want the written event", got)
	}
	after := outputEvent(c.events, "after")
	appended := make(chan error, 1)
	go func() { appended <- j.append(after) }()
	// The journal's one goroutine is held in the written event's fsync:
	// nothing can have answered the append.
	select {
	case err := <-appended:
		t.Fatalf("an append returned (%v) before the written events' fsync", err)
	default:
	}
	close(gate)
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	if got := logIDs(t, root, opWorkerOutput); !slices.Equal(got, []string{written.EventID, after.EventID}) {
		t.Errorf("log %v, want the written event, then the appended one", got)
	}
	if errs := ears.errors(); len(errs) > 0 {
		t.Errorf("journal errors: %v", errs)
	}
}

// TestRequestsAfterCloseAreRefused: a late callback that posts (or
// appends) after the journal closed gets an error, not a panic.
func TestRequestsAfterCloseAreRefused(t *testing.T) {
	t.Parallel()
	c, j, _ := journalOn(t, t.TempDir())
	j.close()
	if err := j.post(outputEvent(c.events, "late")); !errors.Is(err, errJournalClosed) {
		t.Errorf("post after close: %v, want errJournalClosed", err)
	}
	if err := j.append(outputEvent(c.events, "late")); !errors.Is(err, errJournalClosed) {
		t.Errorf("append after close: %v, want errJournalClosed", err)
	}
}

// TestLookupsAfterCloseAreRefused: the index's owner stops with the
// journal; a late look-up (a relay handler still answering) is refused
// with an error, never left waiting for an owner that is gone, even when
// its request still finds room in the owner's queue.
func TestLookupsAfterCloseAreRefused(t *testing.T) {
	t.Parallel()
	_, j, _ := journalOn(t, t.TempDir())
	j.close()
	for range 2 * indexQueue {
		if _, _, err := j.index.lookup("late"); !errors.Is(err, errIndexClosed) {
			t.Fatalf("look-up after close: %v, want errIndexClosed", err)
		}
	}
}

// TestPostedEventsAreHeldWhileTheDiskIsFull: on a full disk posted events
// are held, in order, and written once there is room, while an
// acknowledgement is refused at once; nothing posted is lost or refused.
func TestPostedEventsAreHeldWhileTheDiskIsFull(t *testing.T) {
	root := smallDisk(t, "4m")
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, j, ears := journalOn(t, root)
	filler := filepath.Join(root, "filler")
	fillDisk(t, filler)

	var want []string
	for range 3 {
		e := outputEvent(c.events, "held")
		want = append(want, e.EventID)
		if err := j.post(e); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case full := <-ears.full:
		if !full {
			t.Fatal("the journal said the disk has room before it was full")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the journal did not notice the full disk within 10s")
	}
	ack := c.events.system("DK-2", "run-1", "S1", ledger.SeverityInfo, opInstruction, "message_id", "refused")
	if err := j.appendAck(ack); !errors.Is(err, errDiskFull) {
		t.Fatalf("an acknowledgement on a full disk: %v, want ErrDiskFull", err)
	}
	// Room again; an append waits until everything before it is written.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	last := outputEvent(c.events, "after")
	want = append(want, last.EventID)
	if err := j.append(last); err != nil {
		t.Fatalf("append once there is room: %v", err)
	}
	j.close()
	if got := logIDs(t, root, opWorkerOutput); !slices.Equal(got, want) {
		t.Errorf("log %v, want the held events in order, then the append: %v", got, want)
	}
	if ids := logIDs(t, root, opInstruction); len(ids) != 0 {
		t.Errorf("the refused acknowledgement is in the log: %v", ids)
	}
	if ids := logIDs(t, root, opLedgerWritesHeld); len(ids) != 1 {
		t.Errorf("%d LEDGER_WRITES_HELD events, want 1", len(ids))
	}
	for _, err := range ears.errors() {
		t.Errorf("journal error (posted events must be held, not given up): %v", err)
	}
}

// fillDisk writes path until its file system has no room left.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	// The last bytes: smaller writes until not even one fits.
	for n := len(buf) / 2; n > 0; n /= 2 {
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				break
			}
		}
	}
}

// TestARefusedAcknowledgementAloneEndsItsStall: on a full disk with
// nothing else to write, an acknowledgement is refused; once there is
// room again the journal must notice by itself (nothing else may ever
// be written to tell it), say so, and take instructions again.
func TestARefusedAcknowledgementAloneEndsItsStall(t *testing.T) {
	root := smallDisk(t, "4m")
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, j, ears := journalOn(t, root)
	filler := filepath.Join(root, "filler")
	fillDisk(t, filler)
	// Longer than a page: it needs one the disk no longer has.
	ack := c.events.system("DK-2", "run-1", "S1", ledger.SeverityInfo, opInstruction, "message_id", "refused",
		"text", strings.Repeat("x", 8192))
	if err := j.appendAck(ack); !errors.Is(err, errDiskFull) {
		t.Fatalf("an acknowledgement on a full disk: %v, want ErrDiskFull", err)
	}
	if !j.isFull() {
		t.Fatal("the journal does not say the disk is full")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for _, want := range []bool{true, false} {
		select {
		case full := <-ears.full:
			if full != want {
				t.Fatalf("the journal said full=%v, want %v", full, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the journal did not say full=%v within 20s", want)
		}
	}
	ack = c.events.system("DK-3", "run-1", "S1", ledger.SeverityInfo, opInstruction, "message_id", "taken")
	if err := j.appendAck(ack); err != nil {
		t.Fatalf("an acknowledgement once there is room: %v", err)
	}
	j.close()
	if ids := logIDs(t, root, opLedgerWritesHeld); len(ids) != 1 {
		t.Errorf("%d LEDGER_WRITES_HELD events, want 1", len(ids))
	}
	if ids := logIDs(t, root, opInstruction); len(ids) != 1 {
		t.Errorf("instructions in the log %v, want only the one taken after the stall", ids)
	}
}

// TestHeldWritesAreGivenUpOnceTheControllerStops: on a disk that stays
// full, writes are held for ever while the controller runs; once it
// stops (stopHolding), they are given up after the bound and an append
// fails instead of waiting, so that the controller can end.
func TestHeldWritesAreGivenUpOnceTheControllerStops(t *testing.T) {
	root := smallDisk(t, "4m")
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, j, ears := journalOn(t, root)
	fillDisk(t, filepath.Join(root, "filler"))
	if err := j.post(outputEvent(c.events, "held")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ears.full:
	case <-time.After(10 * time.Second):
		t.Fatal("the journal did not notice the full disk within 10s")
	}
	j.stopHolding(50 * time.Millisecond)
	done := make(chan error, 1)
	go func() {
		done <- j.append(c.events.system(globalID, globalID, "", ledger.SeverityInfo, opControllerStopped))
	}()
	select {
	case err := <-done:
		if !isNoSpace(err) {
			t.Fatalf("an append after the stop on a full disk: %v, want no space", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an append after the stop still waits for room")
	}
	j.close()
	if len(ears.errors()) == 0 {
		t.Error("the posted event was given up without a word to onErr")
	}
}
