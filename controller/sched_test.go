package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/relay"
)

func ownerN(n int) Owner { return Owner{TaskID: "T", RunID: "R", StepID: string(rune('A' + n))} }

func mustEnqueue(t *testing.T, s *laneScheduler, lane string, o Owner) *ticket {
	t.Helper()
	tk, err := s.Enqueue(lane, o)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func isReady(t *ticket) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func positions(ts ...*ticket) []int {
	out := make([]int, len(ts))
	for i, t := range ts {
		out[i] = t.Position()
	}
	return out
}

func samePositions(got, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestLimitOneMakesTheSecondRunWait(t *testing.T) {
	s := newLaneScheduler(map[string]int{"worker": 1})
	a := mustEnqueue(t, s, "worker", ownerN(0))
	b := mustEnqueue(t, s, "worker", ownerN(1))
	if !isReady(a) || isReady(b) {
		t.Fatalf("ready: got a=%v b=%v, want only a", isReady(a), isReady(b))
	}
	if got := positions(a, b); !samePositions(got, []int{0, 1}) {
		t.Errorf("positions: got %v, want [0 1]", got)
	}
	st := s.Status("worker")
	if st.Limit != 1 || len(st.Holding) != 1 || st.Holding[0] != ownerN(0) || len(st.Waiting) != 1 || st.Waiting[0] != ownerN(1) {
		t.Errorf("status: got %+v", st)
	}
}

func TestReleaseWakesTheNextInOrder(t *testing.T) {
	s := newLaneScheduler(nil) // unconfigured lanes have one slot
	ts := make([]*ticket, 4)
	for i := range ts {
		ts[i] = mustEnqueue(t, s, "lane", ownerN(i))
	}
	for i := 0; i < len(ts); i++ {
		want := make([]int, len(ts))
		for j := range want {
			switch {
			case j < i:
				want[j] = -1
			default:
				want[j] = j - i
			}
		}
		if got := positions(ts...); !samePositions(got, want) {
			t.Fatalf("after %d releases: positions %v, want %v", i, got, want)
		}
		if !isReady(ts[i]) {
			t.Fatalf("ticket %d not ready after %d releases", i, i)
		}
		ts[i].Release()
		ts[i].Release() // twice is harmless
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	s := newLaneScheduler(map[string]int{"lane": 1})
	a := mustEnqueue(t, s, "lane", ownerN(0))
	b := mustEnqueue(t, s, "lane", ownerN(1))
	c := mustEnqueue(t, s, "lane", ownerN(2))
	b.Release() // cancel while waiting
	select {
	case <-c.Moved():
	default:
		t.Error("c was not told that it moved up")
	}
	if got := positions(a, b, c); !samePositions(got, []int{0, -1, 1}) {
		t.Errorf("positions: got %v, want [0 -1 1]", got)
	}
	a.Release()
	if isReady(b) || !isReady(c) {
		t.Errorf("after a's release: b ready %v, c ready %v; want only c", isReady(b), isReady(c))
	}
}

func TestAcquireReportsPositionsAndHonoursCancel(t *testing.T) {
	s := newLaneScheduler(map[string]int{"lane": 1})
	holder, err := s.Acquire(context.Background(), "lane", ownerN(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	second := mustEnqueue(t, s, "lane", ownerN(1))

	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan int, 10)
	got := make(chan error, 1)
	go func() {
		_, err := s.Acquire(ctx, "lane", ownerN(2), func(p int) { seen <- p })
		got <- err
	}()
	if p := <-seen; p != 2 {
		t.Fatalf("first position: got %d, want 2", p)
	}
	second.Release()
	if p := <-seen; p != 1 {
		t.Fatalf("position after the one ahead left: got %d, want 1", p)
	}
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire after cancel: got %v, want context.Canceled", err)
	}
	if st := s.Status("lane"); len(st.Waiting) != 0 || len(st.Holding) != 1 {
		t.Errorf("status after the cancel: got %+v, want only the holder", st)
	}
	holder.Release()
	if st := s.Status("lane"); len(st.Holding) != 0 {
		t.Errorf("a cancelled waiter got the slot: %+v", st)
	}
}

func TestLimitTwoAndRaisingIt(t *testing.T) {
	s := newLaneScheduler(map[string]int{"lane": 2})
	ts := []*ticket{mustEnqueue(t, s, "lane", ownerN(0)), mustEnqueue(t, s, "lane", ownerN(1)), mustEnqueue(t, s, "lane", ownerN(2)), mustEnqueue(t, s, "lane", ownerN(3))}
	if got := positions(ts...); !samePositions(got, []int{0, 0, 1, 2}) {
		t.Fatalf("positions with 2 slots: got %v, want [0 0 1 2]", got)
	}
	s.SetLimit("lane", 4)
	if got := positions(ts...); !samePositions(got, []int{0, 0, 0, 0}) {
		t.Errorf("positions after raising the limit to 4: got %v", got)
	}
	s.SetLimit("lane", 0)
	if st := s.Status("lane"); st.Limit != 1 {
		t.Errorf("limit 0: got %d, want 1", st.Limit)
	}
}

func TestOneOwnerOnePlace(t *testing.T) {
	s := newLaneScheduler(nil)
	mustEnqueue(t, s, "lane", ownerN(0))
	if _, err := s.Enqueue("lane", ownerN(0)); !errors.Is(err, errAlreadyQueued) {
		t.Errorf("second place for one owner: got %v, want ErrAlreadyQueued", err)
	}
	if _, err := s.Enqueue("other", ownerN(0)); err != nil {
		t.Errorf("another lane: got %v", err)
	}
}

// TestSchedulerUnderLoad: many runs on a lane of three slots never exceed
// three at once, and all of them get their turn.
func TestSchedulerUnderLoad(t *testing.T) {
	s := newLaneScheduler(map[string]int{"lane": 3})
	var active, peak, served atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := s.Acquire(context.Background(), "lane", Owner{TaskID: "T", RunID: "R", StepID: string(rune(i + 'A'))}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			n := active.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			active.Add(-1)
			served.Add(1)
			tk.Release()
		}()
	}
	wg.Wait()
	if peak.Load() > 3 || served.Load() != 50 {
		t.Errorf("peak %d, served %d; want at most 3 at once and all 50 served", peak.Load(), served.Load())
	}
}

// TestLaneSlots covers the form the run loop uses.
func TestLaneSlots(t *testing.T) {
	slots := newLaneSlots(map[string]int{"worker": 1})
	release, err := slots.acquire(context.Background(), "worker", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	positionSeen := make(chan int, 1)
	done := make(chan error, 1)
	go func() {
		r, err := slots.acquire(ctx, "worker", func(p int) { positionSeen <- p })
		if err == nil {
			r()
		}
		done <- err
	}()
	if p := <-positionSeen; p != 1 {
		t.Errorf("position: got %d, want 1", p)
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("second acquire after the release: %v", err)
	}
	cancel()
}

// TestWaitingRunSaysItsPlace: a run that waits for its lane tells the
// windows where it waits, in each reader's language.
func TestWaitingRunSaysItsPlace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	h := startHarness(t, root, shellConfig(`while [ ! -f `+gate+` ]; do sleep 0.05; done`))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.client.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	first := h.forward("first")
	h.workerPID(first.TaskID)
	second := h.forward("second")
	var said *relay.OutputLine
	for said == nil {
		select {
		case n := <-h.client.Notices():
			if o := n.Output; n.Kind == relay.NoticeWorkerOutput && o != nil && o.TaskID == second.TaskID && o.Message != "" {
				said = o
			}
		case <-ctx.Done():
			t.Fatal("the waiting run said nothing")
		}
	}
	if got, want := say.FromRelay(*said).Words(i18n.MustNew(i18n.Chinese)), "等待通道 worker：排在第 1 位"; got != want {
		t.Errorf("in Chinese the waiting run says %q, want %q", got, want)
	}
	os.WriteFile(gate, nil, 0o644)
	h.finished(first.TaskID)
	h.finished(second.TaskID)
}
