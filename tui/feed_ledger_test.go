package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// ledgerRoot makes an initialised ledger and opens its store.
func ledgerRoot(t testing.TB) (string, *ledger.Store) {
	t.Helper()
	root := t.TempDir()
	return root, initLedger(t, root)
}

// initLedger initialises a ledger in root, which a feed may already be
// watching, and opens its store.
func initLedger(t testing.TB, root string) *ledger.Store {
	t.Helper()
	if _, err := ledger.Init(root, fixedNow); err != nil {
		t.Fatal(err)
	}
	st, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// nextWithin reads one update, failing the test after a deadline.
func nextWithin(t *testing.T, src *LedgerSource) live.LedgerUpdate {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u, err := src.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return u
}

// collect reads updates until cond holds for everything read so far.
func collect(t *testing.T, src *LedgerSource, cond func(events []ledger.Event, last live.LedgerUpdate) bool) ([]ledger.Event, live.LedgerUpdate) {
	t.Helper()
	var all []ledger.Event
	for {
		u := nextWithin(t, src)
		all = append(all, u.Events...)
		if cond(all, u) {
			return all, u
		}
	}
}

func TestLedgerSourceFollowsAndCoalesces(t *testing.T) {
	t.Parallel()
	root, st := ledgerRoot(t)
	if err := st.AppendEvents(fixtureEvents(30)); err != nil {
		t.Fatal(err)
	}
	src := NewLedgerSource(root, 10)
	src.SetPollInterval(200 * time.Millisecond)
	t.Cleanup(func() { src.Close() })

	first := nextWithin(t, src)
	if !first.Initial || len(first.Events) != 10 || first.Snapshot == nil || !first.Snapshot.Pipeline.OK() {
		t.Fatalf("first update: initial %v, %d events, snapshot %+v", first.Initial, len(first.Events), first.Snapshot)
	}
	if first.Events[9].EventID != fixtureEvents(30)[29].EventID {
		t.Fatal("the tail is not the newest events")
	}
	batch := fixtureEvents(25)
	for i := range batch {
		batch[i].EventID = fmt.Sprintf("evt_new_%02d", i)
		if err := st.AppendEvent(batch[i]); err != nil {
			t.Fatal(err)
		}
	}
	elided := 0
	got, _ := collect(t, src, func(evs []ledger.Event, u live.LedgerUpdate) bool {
		elided += u.Elided
		return len(evs)+elided >= 25
	})
	if len(got)+elided != 25 || got[len(got)-1].EventID != "evt_new_24" {
		t.Fatalf("followed %d events (+%d elided), last %q", len(got), elided, got[len(got)-1].EventID)
	}
	for i := 1; i < len(got); i++ {
		if got[i].EventID <= got[i-1].EventID {
			t.Fatalf("events out of order: %q after %q", got[i].EventID, got[i-1].EventID)
		}
	}
}

func TestLedgerSourceKeepsLastGoodDocument(t *testing.T) {
	t.Parallel()
	root, st := ledgerRoot(t)
	p := fixturePipeline()
	if _, err := st.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	src := NewLedgerSource(root, 100)
	src.SetPollInterval(100 * time.Millisecond)
	t.Cleanup(func() { src.Close() })
	nextWithin(t, src)

	// A writer that truncates and rewrites in place, caught half-way.
	path := ledger.Layout{Root: root}.Pipeline()
	if err := os.WriteFile(path, []byte(`{"schema_version": "1.0.0", "task_id": "DK-`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, u := collect(t, src, func(_ []ledger.Event, u live.LedgerUpdate) bool {
		return u.Snapshot != nil && u.Snapshot.Pipeline.Err != nil
	})
	pr := u.Snapshot.Pipeline
	if !pr.Stale || pr.Value.Goal != p.Goal {
		t.Fatalf("broken pipeline: stale %v goal %q; want the last good goal", pr.Stale, pr.Value.Goal)
	}
	if len(ledger.Problems(pr.Err)) == 0 {
		t.Errorf("error %v does not name the problem", pr.Err)
	}

	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, u = collect(t, src, func(_ []ledger.Event, u live.LedgerUpdate) bool {
		return u.Snapshot != nil && errors.Is(u.Snapshot.Pipeline.Err, ledger.ErrEmpty)
	})
	if !u.Snapshot.Pipeline.Stale {
		t.Error("empty pipeline file lost the last good value")
	}
	if _, err := st.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	collect(t, src, func(_ []ledger.Event, u live.LedgerUpdate) bool {
		return u.Snapshot != nil && u.Snapshot.Pipeline.OK()
	})
}

func TestLedgerSourceReportsMissingFilesAndTruncation(t *testing.T) {
	t.Parallel()
	root := t.TempDir() // no ledger at all
	src := NewLedgerSource(root, 100)
	src.SetPollInterval(100 * time.Millisecond)
	t.Cleanup(func() { src.Close() })
	first := nextWithin(t, src)
	if !errors.Is(first.Snapshot.Pipeline.Err, ledger.ErrMissing) || !errors.Is(first.EventsErr, ledger.ErrMissing) {
		t.Fatalf("missing ledger: pipeline %v events %v", first.Snapshot.Pipeline.Err, first.EventsErr)
	}
	if first.Snapshot.Pipeline.HasValue() || first.Snapshot.Heartbeat.Stale {
		t.Fatal("a ledger that never loaded claims last good data")
	}
	st := initLedger(t, root)
	if err := st.AppendEvents(fixtureEvents(5)); err != nil {
		t.Fatal(err)
	}
	collect(t, src, func(evs []ledger.Event, u live.LedgerUpdate) bool { return len(evs) >= 5 })
	if err := os.Truncate(ledger.Layout{Root: root}.Events(), 0); err != nil {
		t.Fatal(err)
	}
	collect(t, src, func(_ []ledger.Event, u live.LedgerUpdate) bool { return u.Reset })
}

func TestLedgerSourceClose(t *testing.T) {
	t.Parallel()
	root, _ := ledgerRoot(t)
	src := NewLedgerSource(root, 100)
	nextWithin(t, src)
	done := make(chan error, 1)
	go func() {
		// A change that was already pending may still be handed out;
		// after it, Next must say the source is closed.
		for {
			if _, err := src.Next(context.Background()); err != nil {
				done <- err
				return
			}
		}
	}()
	src.Close()
	select {
	case err := <-done:
		if !errors.Is(err, live.ErrClosed) {
			t.Fatalf("Next after Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next did not return after Close")
	}
}
