package worker

import (
	"strconv"
	"testing"
	"time"

	"github.com/daokit/daokit/worker/transcript"
)

func plainRec(i int) transcript.Record { return transcript.Record{Text: "line " + strconv.Itoa(i)} }

func criticalRec(id string) transcript.Record {
	return transcript.Record{Text: id, Status: transcript.StatusEvent, Events: []transcript.Event{{Type: transcript.EventSession, ID: id}}}
}

// drain pops everything a closed queue holds.
func drain(q *recordQueue) []transcript.Record {
	var out []transcript.Record
	for {
		r, ok := q.pop()
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

func texts(recs []transcript.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Text
	}
	return out
}

func TestQueueDropsOldestOrdinaryLines(t *testing.T) {
	q := newRecordQueue(4, 1<<20)
	for i := 1; i <= 10; i++ {
		q.push(plainRec(i))
	}
	q.close(transcript.Record{Status: transcript.StatusGap})
	got := drain(q)
	if want := "line 7|line 8|line 9|line 10"; join(texts(got)) != want {
		t.Fatalf("kept: got %q, want the newest four %q", join(texts(got)), want)
	}
	if got[0].Dropped != 6 || got[1].Dropped != 0 {
		t.Errorf("drop counts: got %d, %d; want 6 on the first kept line, then 0", got[0].Dropped, got[1].Dropped)
	}
	if d := q.droppedCount(); d != 6 {
		t.Errorf("droppedCount: got %d, want 6", d)
	}
}

func TestQueueKeepsCriticalRecordsInPlace(t *testing.T) {
	q := newRecordQueue(3, 1<<20)
	q.push(plainRec(1))
	q.push(criticalRec("session-a"))
	for i := 2; i <= 6; i++ {
		q.push(plainRec(i))
	}
	q.close(transcript.Record{Status: transcript.StatusGap})
	got := drain(q)
	if want := "session-a|line 5|line 6"; join(texts(got)) != want {
		t.Fatalf("kept: got %q, want %q", join(texts(got)), want)
	}
	// Line 1 was dropped before the session, lines 2–4 after it.
	if got[0].Dropped != 1 || got[1].Dropped != 3 {
		t.Errorf("drop counts: got %d, %d; want 1 and 3", got[0].Dropped, got[1].Dropped)
	}
}

func TestQueueByteBound(t *testing.T) {
	q := newRecordQueue(100, 3*(entryOverhead+6))
	for i := 1; i <= 5; i++ {
		q.push(plainRec(i)) // "line N" is 6 bytes
	}
	q.close(transcript.Record{Status: transcript.StatusGap})
	if got := drain(q); len(got) != 3 || got[0].Text != "line 3" {
		t.Errorf("kept: got %q, want the three newest lines", texts(got))
	}
}

func TestQueueCriticalPushWaitsForRoom(t *testing.T) {
	q := newRecordQueue(2, 1<<20)
	q.push(criticalRec("a"))
	q.push(criticalRec("b"))
	pushed := make(chan struct{})
	go func() {
		q.push(criticalRec("c"))
		close(pushed)
	}()
	select {
	case <-pushed:
		t.Fatal("a critical record was pushed into a queue full of critical records")
	case <-time.After(50 * time.Millisecond):
		// Still waiting, as it should: nothing may be dropped.
	}
	if r, _ := q.pop(); r.Text != "a" {
		t.Fatalf("pop: got %q, want a", r.Text)
	}
	<-pushed
	q.close(transcript.Record{Status: transcript.StatusGap})
	if got := join(texts(drain(q))); got != "b|c" {
		t.Errorf("rest: got %q, want b|c", got)
	}
}

func TestQueueRelaxStopsWaiting(t *testing.T) {
	q := newRecordQueue(1, 1<<20)
	q.push(criticalRec("a"))
	pushed := make(chan struct{})
	go func() {
		q.push(criticalRec("b"))
		close(pushed)
	}()
	q.relax()
	<-pushed
	q.close(transcript.Record{Status: transcript.StatusGap})
	got := drain(q)
	if len(got) != 2 || got[0].Text != "a" || got[1].Status != transcript.StatusGap || got[1].Dropped != 1 {
		t.Errorf("got %+v, want a, then a gap of 1", got)
	}
}

func TestQueueGapRecordForTrailingDrops(t *testing.T) {
	q := newRecordQueue(1, 1<<20)
	q.push(criticalRec("a"))
	q.relax()
	q.push(plainRec(1))
	q.push(plainRec(2))
	q.close(transcript.Record{Status: transcript.StatusGap})
	got := drain(q)
	if len(got) != 2 || got[1].Status != transcript.StatusGap || got[1].Dropped != 2 {
		t.Errorf("got %+v, want the session then a gap of 2", got)
	}
}

func TestQueueDiscardUnblocksEveryone(t *testing.T) {
	q := newRecordQueue(1, 1<<20)
	q.push(criticalRec("a"))
	pushed := make(chan struct{})
	go func() {
		q.push(criticalRec("b"))
		close(pushed)
	}()
	q.discard()
	<-pushed
	if _, ok := q.pop(); ok {
		t.Error("pop after discard: got a record, want none")
	}
	if d := q.droppedCount(); d != 2 {
		t.Errorf("droppedCount: got %d, want 2", d)
	}
	q.discard() // twice is fine
}

// The ring grows with the backlog, across its wrap, in order, and stops
// at the bound, where the oldest lines give way as before.
func TestQueueGrowsWithItsBacklogUpToTheBound(t *testing.T) {
	q := newRecordQueue(64, 1<<20)
	if len(q.ring) >= 64 {
		t.Fatalf("a new queue holds %d entries, want fewer than its bound", len(q.ring))
	}
	next := 1
	for ; next <= 10; next++ {
		q.push(plainRec(next))
	}
	for i := 1; i <= 7; i++ {
		if r, _ := q.pop(); r.Text != "line "+strconv.Itoa(i) {
			t.Fatalf("pop %d: %q", i, r.Text)
		}
	}
	for ; next <= 80; next++ { // across the wrap, past the bound
		q.push(plainRec(next))
	}
	if len(q.ring) != 64 {
		t.Fatalf("ring of %d entries, want the bound of 64", len(q.ring))
	}
	q.close(transcript.Record{Status: transcript.StatusGap})
	got := drain(q)
	if len(got) != 64 || got[0].Text != "line 17" || got[63].Text != "line 80" || got[0].Dropped != 9 {
		t.Fatalf("kept %d from %q (dropped %d) to %q, want lines 17–80 with 9 dropped before them",
			len(got), got[0].Text, got[0].Dropped, got[len(got)-1].Text)
	}
	for i, r := range got {
		if r.Text != "line "+strconv.Itoa(17+i) {
			t.Fatalf("entry %d is %q, want line %d", i, r.Text, 17+i)
		}
	}
}
