package ledger

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

const watchTimeout = 10 * time.Second

// notifyOnly turns the stat poll off, so that a test proves fsnotify
// alone keeps up.
const notifyOnly = -1

// recorder accumulates what a Watcher delivers.
type recorder struct {
	t       *testing.T
	w       *Watcher
	changes []Change
	events  []string
	files   FileSet
	resets  int
}

func startWatch(t *testing.T, root string, opts WatchOptions) *recorder {
	t.Helper()
	w, err := Watch(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &recorder{t: t, w: w}
}

// until receives Changes until cond holds.
func (r *recorder) until(what string, cond func() bool) {
	r.t.Helper()
	timer := time.NewTimer(watchTimeout)
	defer timer.Stop()
	for !cond() {
		select {
		case ch, ok := <-r.w.Changes():
			if !ok {
				r.t.Fatalf("Changes closed while waiting for %s", what)
			}
			r.record(ch)
		case <-timer.C:
			r.t.Fatalf("timed out waiting for %s; got files %v events %v", what, r.files, r.events)
		}
	}
}

func (r *recorder) record(ch Change) {
	r.changes = append(r.changes, ch)
	r.files |= ch.Files
	if ch.EventsReset {
		r.resets++
	}
	r.events = append(r.events, seqs(ch.Events)...)
}

// initial consumes the first Change, which reports every file.
func (r *recorder) initial() Change {
	r.t.Helper()
	r.until("the initial change", func() bool { return len(r.changes) > 0 })
	ch := r.changes[0]
	if !ch.Rescan || ch.Files != AllFiles {
		r.t.Errorf("initial change = files %v rescan %v, want all files and rescan", ch.Files, ch.Rescan)
	}
	r.reset()
	return ch
}

func (r *recorder) reset() { r.changes, r.events, r.files, r.resets = nil, nil, 0, 0 }

func (r *recorder) hasFile(f FileSet) func() bool { return func() bool { return r.files.Has(f) } }

func (r *recorder) hasEvents(n int) func() bool { return func() bool { return len(r.events) >= n } }

func TestWatchDocumentReplaces(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	r := startWatch(t, root, WatchOptions{EventsOffset: FromEnd, PollInterval: notifyOnly})
	r.initial()
	for i := range 5 {
		p := NewPipelineState(testNow)
		p.Goal = "goal " + string(rune('a'+i))
		if _, err := s.WritePipeline(p); err != nil {
			t.Fatal(err)
		}
		r.until("a pipeline change", r.hasFile(FilePipeline))
		r.reset()
	}
	writes := []struct {
		file  FileSet
		write func() error
	}{
		{FileHeartbeat, func() error { _, err := s.WriteHeartbeat(NewHeartbeatStatus(testNow)); return err }},
		{FileLeases, func() error { _, err := s.WriteLeases(NewLeases(testNow)); return err }},
		{FileHandoff, func() error { return s.WriteHandoff(handoffDoc{Valid: true}) }},
	}
	for _, w := range writes {
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		r.until(w.file.String()+" change", r.hasFile(w.file))
		r.reset()
	}
}

func TestWatchDeliversEvents(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	if err := s.AppendEvents([]Event{testEvent(0), testEvent(1)}); err != nil {
		t.Fatal(err)
	}
	tail, err := TailEvents(statePath(root, EventsFile), 1)
	if err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, root, WatchOptions{EventsOffset: tail.Offset, PollInterval: notifyOnly})
	r.initial()
	for i := 2; i < 30; i++ {
		if err := s.AppendEvent(testEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	r.until("28 events", r.hasEvents(28))
	if want := seqRange(2, 30); !slices.Equal(r.events, want) {
		t.Errorf("events = %v, want %v", r.events, want)
	}
	if last := r.changes[len(r.changes)-1]; last.Offset != int64(len(readFile(t, statePath(root, EventsFile)))) {
		t.Errorf("Offset = %d, want the file size", last.Offset)
	}
}

func TestWatchIgnoresNoise(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	r := startWatch(t, root, WatchOptions{EventsOffset: FromEnd, PollInterval: notifyOnly})
	r.initial()
	if err := os.Chmod(statePath(root, PipelineFile), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, statePath(root, ".pipeline_state.json.tmp-abc"), []byte("{"))
	if err := os.Remove(statePath(root, ".pipeline_state.json.tmp-abc")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, statePath(root, "snapshots.jsonl"), []byte("{}\n"))
	writeFile(t, statePath(root, LockFile), []byte("1\n"))
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	r.until("the event", r.hasEvents(1))
	if r.files != FileEvents {
		t.Errorf("files = %v, want only %v: noise leaked into a change", r.files, FileEvents)
	}
}

func TestWatchEventsTruncatedAndRecreated(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	path := statePath(root, EventsFile)
	r := startWatch(t, root, WatchOptions{EventsOffset: 0, PollInterval: notifyOnly})
	r.initial()
	appendFile(t, path, testLines(t, 0, 5))
	r.until("5 events", r.hasEvents(5))
	r.reset()

	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, testLines(t, 10, 12))
	r.until("events after truncation", r.hasEvents(2))
	if !slices.Equal(r.events, seqRange(10, 12)) || r.resets == 0 {
		t.Errorf("after truncate: events %v resets %d, want %v with a reset", r.events, r.resets, seqRange(10, 12))
	}
	r.reset()

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, testLines(t, 20, 23))
	r.until("events after recreate", r.hasEvents(3))
	if got := r.events[len(r.events)-3:]; !slices.Equal(got, seqRange(20, 23)) || r.resets == 0 {
		t.Errorf("after recreate: events %v resets %d, want %v with a reset", r.events, r.resets, seqRange(20, 23))
	}
	r.reset()

	other := filepath.Join(root, "elsewhere.jsonl")
	writeFile(t, other, testLines(t, 30, 31))
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	r.until("events after rename-replace", r.hasEvents(1))
	if !slices.Equal(r.events, seqRange(30, 31)) {
		t.Errorf("after rename: events %v, want %v", r.events, seqRange(30, 31))
	}
}

func TestWatchStateDirAppearsLater(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts WatchOptions
	}{
		{"fsnotify", WatchOptions{EventsOffset: FromEnd, PollInterval: notifyOnly}},
		{"poll", WatchOptions{EventsOffset: FromEnd, PollOnly: true, PollInterval: 5 * time.Millisecond}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testStateDirAppearsLater(t, tt.opts)
		})
	}
}

func testStateDirAppearsLater(t *testing.T, opts WatchOptions) {
	root := filepath.Join(t.TempDir(), "not", "yet")
	r := startWatch(t, root, opts)
	if ch := r.initial(); ch.Files != AllFiles {
		t.Fatalf("initial = %v", ch.Files)
	}
	if _, err := Init(root, testNow); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	r.until("the first event", r.hasEvents(1))
	if !r.files.Has(FilePipeline) {
		t.Errorf("files = %v, want the pipeline reported once state/ appeared", r.files)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r.reset()

	// The whole state folder goes away and comes back.
	if err := os.RemoveAll(filepath.Join(root, StateDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(root, testNow); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, root)
	if err := s2.AppendEvent(testEvent(2)); err != nil {
		t.Fatal(err)
	}
	r.until("an event in the new state folder", func() bool { return slices.Contains(r.events, "seq:2") })
	for i := 3; i < 6; i++ {
		if err := s2.AppendEvent(testEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	r.until("events after the folder came back", func() bool { return slices.Contains(r.events, "seq:5") })
}

func TestWatchCoalescesBursts(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	r := startWatch(t, root, WatchOptions{EventsOffset: FromEnd, PollInterval: notifyOnly})
	r.initial()
	// Nobody reads while 500 events arrive in 100 writes.
	for i := 0; i < 500; i += 5 {
		batch := []Event{testEvent(i), testEvent(i + 1), testEvent(i + 2), testEvent(i + 3), testEvent(i + 4)}
		if err := s.AppendEvents(batch); err != nil {
			t.Fatal(err)
		}
	}
	r.until("500 events", r.hasEvents(500))
	if !slices.Equal(r.events, seqRange(0, 500)) {
		t.Errorf("events out of order or duplicated: %d events", len(r.events))
	}
	if len(r.changes) > 10 {
		t.Errorf("got %d changes for one burst, want a few", len(r.changes))
	}
}

func TestWatchPollOnly(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	r := startWatch(t, root, WatchOptions{EventsOffset: FromEnd, PollOnly: true, PollInterval: 5 * time.Millisecond})
	r.initial()
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	r.until("an event by polling", r.hasEvents(1))
	if _, err := s.WritePipeline(NewPipelineState(testNow)); err != nil {
		t.Fatal(err)
	}
	r.until("a pipeline change by polling", r.hasFile(FilePipeline))
}

// drainClosed waits until ch is closed.
func drainClosed(t *testing.T, ch <-chan Change) {
	t.Helper()
	timer := time.NewTimer(watchTimeout)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			t.Fatal("Changes was not closed")
		}
	}
}

func TestWatchStops(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	byCtx, err := Watch(ctx, root, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	drainClosed(t, byCtx.Changes())
	if err := byCtx.Close(); err != nil {
		t.Errorf("Close after cancel = %v", err)
	}

	byClose, err := Watch(context.Background(), root, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Close must not wait for a consumer to take the pending Change.
	if err := byClose.Close(); err != nil {
		t.Fatal(err)
	}
	drainClosed(t, byClose.Changes())
	if err := byClose.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestWatchLeavesNoGoroutines is not parallel: it counts goroutines.
func TestWatchLeavesNoGoroutines(t *testing.T) {
	root := initRoot(t)
	before := runtime.NumGoroutine()
	for range 5 {
		w, err := Watch(context.Background(), root, WatchOptions{PollInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		<-w.Changes()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 5*time.Second, "goroutines to return to the baseline", func() bool {
		return runtime.NumGoroutine() <= before
	})
}
