// Package outboxtest is the behaviour every outbox.Backend must have,
// as tests any backend's own tests run against it: the SQLite file, the
// hub's stream, and whatever backend follows. Only tests import it.
package outboxtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
)

// Handle says how to open one handle on an outbox.
type Handle struct {
	// WakeInterval bounds Wait (0: the backend's default).
	WakeInterval time.Duration
}

// Opener opens another handle on the same outbox (another process of the
// team, as far as the backend can tell); the test's cleanup closes it.
type Opener func(t testing.TB, h Handle) outbox.Backend

// Maker makes a new, empty outbox for one test.
type Maker func(t testing.TB) Opener

// Run runs every behaviour test against the backend make makes.
func Run(t *testing.T, make Maker) {
	for _, c := range []struct {
		name string
		f    func(*testing.T, Opener)
	}{
		{"OpenCommentLabelAssignClose", openCommentLabelAssignClose},
		{"TriggerOnceAndCursorNeverBack", triggerOnceAndCursorNeverBack},
		{"TriggerRaceOneEffect", triggerRaceOneEffect},
		{"EventIDsIncrease", eventIDsIncrease},
		{"WorkerIsReadOnly", workerIsReadOnly},
		{"InvalidChanges", invalidChanges},
		{"WaitWakesOnCommit", waitWakesOnCommit},
		{"LimitSharedAcrossAssignees", limitSharedAcrossAssignees},
		{"IfAssigneeLosesOnlyItsPart", ifAssigneeLosesOnlyItsPart},
		{"ClaimRaceOneWinner", claimRaceOneWinner},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, make(t)) })
	}
}

// MustApply applies c or fails the test.
func MustApply(t testing.TB, s outbox.Backend, c outbox.Change) outbox.Result {
	t.Helper()
	r, err := s.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func openCommentLabelAssignClose(t *testing.T, open Opener) {
	s := open(t, Handle{})
	ctx := context.Background()
	r := MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{
		{Kind: outbox.OpOpen, Title: "login", Body: "DependsOn: #9", Labels: []string{"to:backend"}},
		{Kind: outbox.OpComment, Issue: -1, Body: "first"},
	}})
	if len(r.Issues) != 1 || len(r.Comments) != 1 || len(r.Events) != 2 {
		t.Fatalf("%+v", r)
	}
	id := r.Issues[0]
	MustApply(t, s, outbox.Change{Actor: "lead:backend", Ops: []outbox.Op{
		{Kind: outbox.OpAssign, Issue: id, Assignee: "lead:backend"},
		{Kind: outbox.OpLabel, Issue: id, Labels: []string{"state:running", "to:backend"}},
		{Kind: outbox.OpUnlabel, Issue: id, Labels: []string{"state:absent"}},
		{Kind: outbox.OpClose, Issue: id},
		{Kind: outbox.OpClose, Issue: id},
	}})
	is, err := s.Issue(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !is.Closed || is.Assignee != "lead:backend" || fmt.Sprint(is.Labels) != "[state:running to:backend]" ||
		is.Title != "login" || is.Body != "DependsOn: #9" || is.Author != "ann" || is.Updated.Before(is.Created) {
		t.Fatalf("%+v", is)
	}
	evs, err := s.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []outbox.EventKind
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	// Operations that change nothing (a label already there, a second
	// close) append no event.
	if fmt.Sprint(kinds) != "[opened commented assigned labeled closed]" {
		t.Fatalf("events %v", kinds)
	}
	if evs[1].Body != "first" || evs[1].Comment != r.Comments[0] || evs[2].Value != "lead:backend" || evs[3].Value != "state:running" {
		t.Fatalf("event details %+v", evs)
	}
	if c, err := s.Comment(ctx, r.Comments[0]); err != nil || c.Body != "first" || c.Issue != id || c.Author != "ann" {
		t.Fatalf("comment %+v %v", c, err)
	}
	if _, err := s.Issue(ctx, 99); !errors.Is(err, outbox.ErrNotFound) {
		t.Fatalf("missing issue: %v", err)
	}
	if _, err := s.Comment(ctx, 99); !errors.Is(err, outbox.ErrNotFound) {
		t.Fatalf("missing comment: %v", err)
	}
	if _, err := s.Apply(ctx, outbox.Change{Actor: "x", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: 99, Body: "hi"}}}); !errors.Is(err, outbox.ErrNotFound) {
		t.Fatalf("comment on a missing issue: %v", err)
	}
	if n, _ := s.Head(ctx); n != evs[len(evs)-1].ID {
		t.Fatalf("head %d", n)
	}
	list, err := s.List(ctx, outbox.Query{Label: "to:backend", State: "closed"})
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	if list, _ := s.List(ctx, outbox.Query{State: "open"}); len(list) != 0 {
		t.Fatalf("open issues %v", list)
	}
	// Another handle (another process) sees the same outbox.
	other := open(t, Handle{})
	if is2, err := other.Issue(ctx, id); err != nil || fmt.Sprint(is2.Labels) != fmt.Sprint(is.Labels) || !is2.Closed {
		t.Fatalf("another handle: %+v %v", is2, err)
	}
}

func triggerOnceAndCursorNeverBack(t *testing.T, open Opener) {
	s := open(t, Handle{})
	ctx := context.Background()
	r := MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}})
	id := r.Issues[0]
	ack := outbox.Change{Actor: "lead:qa", Reader: "lead:qa", UpTo: 1, Trigger: "T-1",
		Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "ack"}}}
	if r := MustApply(t, s, ack); r.Duplicate || r.Stale || len(r.Comments) != 1 {
		t.Fatalf("first %+v", r)
	}
	head, _ := s.Head(ctx)
	// The same event again (a replay after a crash that committed): stale.
	if r := MustApply(t, s, ack); !r.Stale {
		t.Fatalf("replay %+v", r)
	}
	// The same trigger in a later event: the cursor moves, nothing else.
	ack.UpTo = 5
	if r := MustApply(t, s, ack); !r.Duplicate || len(r.Comments) != 0 || len(r.Events) != 0 {
		t.Fatalf("duplicate %+v", r)
	}
	if h, _ := s.Head(ctx); h != head {
		t.Fatalf("a replayed trigger appended events: head %d, was %d", h, head)
	}
	if c, _ := s.Cursor(ctx, "lead:qa"); c != 5 {
		t.Fatalf("cursor %d", c)
	}
	MustApply(t, s, outbox.Change{Reader: "lead:qa", UpTo: 3})
	if c, _ := s.Cursor(ctx, "lead:qa"); c != 5 {
		t.Fatalf("cursor moved back to %d", c)
	}
	if cs, _ := s.Cursors(ctx); len(cs) != 1 || cs["lead:qa"] != 5 {
		t.Fatalf("cursors %v", cs)
	}
	cs, _ := s.Comments(ctx, id)
	if len(cs) != 1 {
		t.Fatalf("%d comments", len(cs))
	}
	if n, _ := s.Triggers(ctx, "lead:qa"); n != 1 {
		t.Fatalf("%d triggers", n)
	}
}

// Writers racing on the same triggers: exactly one effect each (the bug
// of "70+ duplicate comments" in a hash-based dedup).
func triggerRaceOneEffect(t *testing.T, open Opener) {
	var bs []outbox.Backend
	for range 4 {
		bs = append(bs, open(t, Handle{}))
	}
	id := MustApply(t, bs[0], outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	var wg sync.WaitGroup
	for i, s := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 50 {
				_, err := s.Apply(context.Background(), outbox.Change{Actor: "lead:a", Reader: "lead:a", UpTo: int64(i*1000 + k + 1),
					Trigger: fmt.Sprintf("T-%d", k), Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: fmt.Sprintf("T-%d", k)}}})
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
	if n, _ := bs[1].Triggers(context.Background(), "lead:a"); n != 50 {
		t.Fatalf("%d triggers recorded", n)
	}
}

func eventIDsIncrease(t *testing.T, open Opener) {
	s := open(t, Handle{})
	other := open(t, Handle{})
	ctx := context.Background()
	id := MustApply(t, s, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := s
			if w%2 == 1 {
				b = other
			}
			for range 25 {
				if _, err := b.Apply(ctx, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "c"}}}); err != nil {
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
	// Paging: after the 50th event, up to 10 more.
	page, _ := other.Events(ctx, evs[49].ID, 10)
	if len(page) != 10 || page[0].ID != evs[50].ID {
		t.Fatalf("page %+v", page)
	}
}

func workerIsReadOnly(t *testing.T, open Opener) {
	MustApply(t, open(t, Handle{}), outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}})
	t.Setenv(outbox.WorkerEnv, "backend")
	w := open(t, Handle{})
	if _, err := w.Apply(context.Background(), outbox.Change{Actor: "w", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}); !errors.Is(err, outbox.ErrReadOnly) {
		t.Fatalf("worker write: %v", err)
	}
	if is, err := w.Issue(context.Background(), 1); err != nil || is.Title != "x" {
		t.Fatalf("a worker reads: %+v %v", is, err)
	}
}

func invalidChanges(t *testing.T, open Opener) {
	s := open(t, Handle{})
	for _, c := range []outbox.Change{
		{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen}}},
		{Actor: "a", Ops: []outbox.Op{{Kind: "explode"}}},
		{Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}},
		{Actor: "a", Trigger: "t"},
		{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpLabel, Issue: 1, Labels: []string{"two words"}}}},
		{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}, {Kind: outbox.OpComment, Issue: -2, Body: "no second issue"}}},
	} {
		if _, err := s.Apply(context.Background(), c); !errors.Is(err, outbox.ErrInvalid) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	// A refused change did nothing, not even its first operations.
	if h, _ := s.Head(context.Background()); h != 0 {
		t.Fatalf("head %d after refused changes", h)
	}
}

// Wait wakes on a commit of another handle well before its bounded
// interval, and returns after the interval when nothing happens.
func waitWakesOnCommit(t *testing.T, open Opener) {
	r := open(t, Handle{WakeInterval: time.Hour})
	w := open(t, Handle{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Wait(ctx, 0) }()
	// Whether Wait subscribed before or after this commit, it must return.
	MustApply(t, w, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}})
	if err := <-done; err != nil {
		t.Fatalf("wait: %v", err)
	}
	short := open(t, Handle{WakeInterval: 10 * time.Millisecond})
	if err := short.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

// A Limit is counted in the change's own transaction: two writers racing
// for the last place of a cap shared by two assignees get one place.
func limitSharedAcrossAssignees(t *testing.T, open Opener) {
	a, b := open(t, Handle{}), open(t, Handle{})
	r := MustApply(t, a, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "one", Labels: []string{"state:running"}},
		{Kind: outbox.OpAssign, Issue: -1, Assignee: "lead:qa"}, {Kind: outbox.OpOpen, Title: "two"}, {Kind: outbox.OpOpen, Title: "three"}}})
	lim := []outbox.Limit{{Assignees: []string{"lead:qa", "lead:backend"}, Label: "state:running", Max: 2}}
	start := func(s outbox.Backend, id int64, who string) outbox.Result {
		return MustApply(t, s, outbox.Change{Actor: who, Limits: lim, Ops: []outbox.Op{{Kind: outbox.OpAssign, Issue: id, Assignee: who},
			{Kind: outbox.OpLabel, Issue: id, Labels: []string{"state:running"}}}})
	}
	var wg sync.WaitGroup
	res := make([]outbox.Result, 2)
	wg.Add(2)
	go func() { defer wg.Done(); res[0] = start(a, r.Issues[1], "lead:backend") }()
	go func() { defer wg.Done(); res[1] = start(b, r.Issues[2], "lead:qa") }()
	wg.Wait()
	if res[0].OverLimit == res[1].OverLimit {
		t.Fatalf("both or neither got the last place: %+v %+v", res[0], res[1])
	}
	running, err := a.List(context.Background(), outbox.Query{Label: "state:running", State: "open"})
	if err != nil || len(running) != 2 {
		t.Fatalf("%d running, %v", len(running), err)
	}
	// A closed issue frees its place.
	MustApply(t, a, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpClose, Issue: r.Issues[0]}}})
	loser := r.Issues[1]
	if res[1].OverLimit {
		loser = r.Issues[2]
	}
	if res := start(a, loser, "lead:qa"); res.OverLimit {
		t.Fatal("a closed issue still counted")
	}
	if _, err := a.Apply(context.Background(), outbox.Change{Actor: "x", Limits: []outbox.Limit{{Label: "l", Max: 0, Assignees: []string{"a"}}}}); !errors.Is(err, outbox.ErrInvalid) {
		t.Fatalf("a limit of 0: %v", err)
	}
}

// An assignment with IfAssignee is a compare-and-swap: when the issue is
// someone else's, the rest of its part is skipped (its Trigger still
// recorded) and the other parts of the batch apply.
func ifAssigneeLosesOnlyItsPart(t *testing.T, open Opener) {
	s := open(t, Handle{})
	ctx := context.Background()
	r := MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "taken"}, {Kind: outbox.OpAssign, Issue: -1, Assignee: "lead:qa"}, {Kind: outbox.OpOpen, Title: "free"}}})
	taken, free := r.Issues[0], r.Issues[1]
	claim := func(id int64) []outbox.Op {
		return []outbox.Op{{Kind: outbox.OpAssign, Issue: id, Assignee: "lead:backend", IfAssignee: []string{"", "lead:backend"}},
			{Kind: outbox.OpLabel, Issue: id, Labels: []string{"state:queued"}}}
	}
	res := MustApply(t, s, outbox.Change{Actor: "lead:backend", Reader: "lead:backend", UpTo: 1, Trigger: "claim:1", Ops: claim(taken),
		Parts: []outbox.Part{{Trigger: "claim:2", Ops: claim(free)}}})
	if !res.Lost || len(res.PartLost) != 1 || res.PartLost[0] {
		t.Fatalf("%+v", res)
	}
	if is, _ := s.Issue(ctx, taken); is.Assignee != "lead:qa" || len(is.Labels) != 0 {
		t.Fatalf("the lost part changed #%d: %+v", taken, is)
	}
	if is, _ := s.Issue(ctx, free); is.Assignee != "lead:backend" || !is.HasLabel("state:queued") {
		t.Fatalf("#%d: %+v", free, is)
	}
	if n, _ := s.Triggers(ctx, "lead:backend"); n != 2 {
		t.Fatalf("%d triggers", n)
	}
}

// Two Leads on two handles claim the same free issue at once, each with
// IfAssignee "": exactly one takes it, the other's part is lost, and the
// issue carries only the winner's label.
func claimRaceOneWinner(t *testing.T, open Opener) {
	a, b := open(t, Handle{}), open(t, Handle{})
	ctx := context.Background()
	for round := range 10 {
		id := MustApply(t, a, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: fmt.Sprint("race ", round)}}}).Issues[0]
		res := make([]outbox.Result, 2)
		var wg sync.WaitGroup
		for i, s := range []outbox.Backend{a, b} {
			who := fmt.Sprint("lead:", i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = MustApply(t, s, outbox.Change{Actor: who, Ops: []outbox.Op{
					{Kind: outbox.OpAssign, Issue: id, Assignee: who, IfAssignee: []string{""}},
					{Kind: outbox.OpLabel, Issue: id, Labels: []string{"claimed-by-" + fmt.Sprint(i)}}}})
			}()
		}
		wg.Wait()
		if res[0].Lost == res[1].Lost {
			t.Fatalf("round %d: both or neither won: %+v %+v", round, res[0], res[1])
		}
		winner := 0
		if res[0].Lost {
			winner = 1
		}
		is, err := b.Issue(ctx, id)
		if err != nil || is.Assignee != fmt.Sprint("lead:", winner) || fmt.Sprint(is.Labels) != fmt.Sprintf("[claimed-by-%d]", winner) {
			t.Fatalf("round %d: %+v %v (winner %d)", round, is, err, winner)
		}
	}
}
