package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// testNow is the fixed clock of the tests.
var testNow = time.Date(2026, 2, 12, 9, 48, 0, 123456000, time.UTC)

func fixedClock() time.Time { return testNow }

// initRoot creates an initialised ledger root in a temp dir.
func initRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(root, testNow); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return root
}

// openStore opens root and closes the store at the end of the test.
func openStore(t testing.TB, root string) *Store {
	t.Helper()
	s, err := Open(root, Options{Now: fixedClock})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return data
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatalf("append %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close %s: %v", path, err)
	}
}

// testEvent returns a valid event whose dedup_key carries i, so tests
// can check order and completeness.
func testEvent(i int) Event {
	e := NewEvent(testNow, "DKT-1", "RUN-1", "S1", EventSystem, SeverityInfo,
		ObjectOf("seq", i, "note", "test event"))
	e.EventID = fmt.Sprintf("evt_%032x", i)
	e.DedupKey = "seq:" + strconv.Itoa(i)
	return e
}

// testLine is testEvent(i) encoded as a JSONL line.
func testLine(t testing.TB, i int) []byte {
	t.Helper()
	line, err := MarshalLine(testEvent(i))
	if err != nil {
		t.Fatalf("MarshalLine: %v", err)
	}
	return line
}

// testLines is lines from..to-1 concatenated.
func testLines(t testing.TB, from, to int) []byte {
	t.Helper()
	var buf bytes.Buffer
	for i := from; i < to; i++ {
		buf.Write(testLine(t, i))
	}
	return buf.Bytes()
}

// seqs returns the dedup keys of events, for comparisons.
func seqs(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.DedupKey
	}
	return out
}

// seqRange returns the dedup keys testEvent gives from..to-1.
func seqRange(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, "seq:"+strconv.Itoa(i))
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

func statePath(root, name string) string { return filepath.Join(root, StateDir, name) }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// openRefused opens root while another holder has its lock, and returns
// Open's error. Open must refuse at once rather than wait for the lock:
// a call still waiting after 10 s fails the test.
func openRefused(t *testing.T, root string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		s, err := Open(root, Options{})
		if err == nil {
			_ = s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Open still waits for the lock after 10s, want an immediate refusal")
		return nil
	}
}
