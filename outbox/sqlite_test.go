package outbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// newDB makes a new outbox database (daokit outbox init) and returns its
// path.
func newDB(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "outbox.db")
	if _, err := Init(path, false); err != nil {
		t.Fatal(err)
	}
	return path
}

func openTest(t testing.TB) *SQLite {
	t.Helper()
	s, err := OpenSQLite(newDB(t), Options{WakeInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustApply(t testing.TB, s Backend, c Change) Result {
	t.Helper()
	r, err := s.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenCommentLabelAssignClose(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	r := mustApply(t, s, Change{Actor: "ann", Ops: []Op{
		{Kind: OpOpen, Title: "login", Body: "DependsOn: #9", Labels: []string{"to:backend"}},
		{Kind: OpComment, Issue: -1, Body: "first"},
	}})
	if len(r.Issues) != 1 || len(r.Comments) != 1 || len(r.Events) != 2 {
		t.Fatalf("%+v", r)
	}
	id := r.Issues[0]
	mustApply(t, s, Change{Actor: "lead:backend", Ops: []Op{
		{Kind: OpAssign, Issue: id, Assignee: "lead:backend"},
		{Kind: OpLabel, Issue: id, Labels: []string{"state:running", "to:backend"}},
		{Kind: OpUnlabel, Issue: id, Labels: []string{"state:absent"}},
		{Kind: OpClose, Issue: id},
		{Kind: OpClose, Issue: id},
	}})
	is, err := s.Issue(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !is.Closed || is.Assignee != "lead:backend" || fmt.Sprint(is.Labels) != "[state:running to:backend]" {
		t.Fatalf("%+v", is)
	}
	evs, err := s.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []EventKind
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	// Operations that change nothing (a label already there, a second
	// close) append no event.
	if fmt.Sprint(kinds) != "[opened commented assigned labeled closed]" {
		t.Fatalf("events %v", kinds)
	}
	if _, err := s.Issue(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing issue: %v", err)
	}
	if _, err := s.Apply(ctx, Change{Actor: "x", Ops: []Op{{Kind: OpComment, Issue: 99, Body: "hi"}}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("comment on a missing issue: %v", err)
	}
	if n, _ := s.Head(ctx); n != evs[len(evs)-1].ID {
		t.Fatalf("head %d", n)
	}
	list, err := s.List(ctx, Query{Label: "to:backend", State: "closed"})
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
}

func TestTriggerOnceAndCursorNeverBack(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	r := mustApply(t, s, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "x"}}})
	id := r.Issues[0]
	ack := Change{Actor: "lead:qa", Reader: "lead:qa", UpTo: 1, Trigger: "T-1",
		Ops: []Op{{Kind: OpComment, Issue: id, Body: "ack"}}}
	if r := mustApply(t, s, ack); r.Duplicate || r.Stale || len(r.Comments) != 1 {
		t.Fatalf("first %+v", r)
	}
	// The same event again (a replay after a crash that committed): stale.
	if r := mustApply(t, s, ack); !r.Stale {
		t.Fatalf("replay %+v", r)
	}
	// The same trigger in a later event: the cursor moves, nothing else.
	ack.UpTo = 5
	if r := mustApply(t, s, ack); !r.Duplicate || len(r.Comments) != 0 {
		t.Fatalf("duplicate %+v", r)
	}
	if c, _ := s.Cursor(ctx, "lead:qa"); c != 5 {
		t.Fatalf("cursor %d", c)
	}
	mustApply(t, s, Change{Reader: "lead:qa", UpTo: 3})
	if c, _ := s.Cursor(ctx, "lead:qa"); c != 5 {
		t.Fatalf("cursor moved back to %d", c)
	}
	cs, _ := s.Comments(ctx, id)
	if len(cs) != 1 {
		t.Fatalf("%d comments", len(cs))
	}
	if n, _ := s.Triggers(ctx, "lead:qa"); n != 1 {
		t.Fatalf("%d triggers", n)
	}
}

// Two writers racing on the same trigger: exactly one effect (the bug of
// "70+ duplicate comments" in a hash-based dedup).
func TestTriggerRaceOneEffect(t *testing.T) {
	path := newDB(t)
	var bs []*SQLite
	for range 4 {
		s, err := OpenSQLite(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		bs = append(bs, s)
	}
	id := mustApply(t, bs[0], Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "x"}}}).Issues[0]
	var wg sync.WaitGroup
	for i, s := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 50 {
				_, err := s.Apply(context.Background(), Change{Actor: "lead:a", Reader: "lead:a", UpTo: int64(i*1000 + k + 1),
					Trigger: fmt.Sprintf("T-%d", k), Ops: []Op{{Kind: OpComment, Issue: id, Body: fmt.Sprintf("T-%d", k)}}})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	cs, _ := bs[0].Comments(context.Background(), id)
	if len(cs) != 50 {
		t.Fatalf("%d comments for 50 triggers", len(cs))
	}
}

func TestEventIDsIncrease(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	id := mustApply(t, s, Change{Actor: "a", Ops: []Op{{Kind: OpOpen, Title: "x"}}}).Issues[0]
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if _, err := s.Apply(ctx, Change{Actor: "a", Ops: []Op{{Kind: OpComment, Issue: id, Body: "c"}}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	evs, _ := s.Events(ctx, 0, 1000)
	if len(evs) != 101 {
		t.Fatalf("%d events", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].ID <= evs[i-1].ID {
			t.Fatalf("ids %d then %d", evs[i-1].ID, evs[i].ID)
		}
	}
}

func TestWorkerIsReadOnly(t *testing.T) {
	path := newDB(t)
	s, err := OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	t.Setenv(WorkerEnv, "backend")
	w, err := OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Apply(context.Background(), Change{Actor: "w", Ops: []Op{{Kind: OpOpen, Title: "x"}}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("worker write: %v", err)
	}
}

func TestInvalidChanges(t *testing.T) {
	s := openTest(t)
	for _, c := range []Change{
		{Actor: "a", Ops: []Op{{Kind: OpOpen}}},
		{Actor: "a", Ops: []Op{{Kind: "explode"}}},
		{Ops: []Op{{Kind: OpOpen, Title: "x"}}},
		{Actor: "a", Trigger: "t"},
		{Actor: "a", Ops: []Op{{Kind: OpLabel, Issue: 1, Labels: []string{"two words"}}}},
	} {
		if _, err := s.Apply(context.Background(), c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// Wait wakes on a commit of another connection well before its bounded
// interval, and returns after the interval when nothing happens.
func TestWaitWakesOnCommit(t *testing.T) {
	path := newDB(t)
	r, err := OpenSQLite(path, Options{WakeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Wait(ctx, 0) }()
	// Once Wait subscribed and found nothing, a commit must wake it.
	mustApply(t, w, Change{Actor: "a", Ops: []Op{{Kind: OpOpen, Title: "x"}}})
	if err := <-done; err != nil {
		t.Fatalf("wait: %v", err)
	}
	short, err := OpenSQLite(path, Options{WakeInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	if err := short.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
