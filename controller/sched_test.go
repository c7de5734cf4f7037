package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/ledger"
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

// startedSlots returns lanes whose loop runs until the test ends.
func startedSlots(t *testing.T, limits map[string]int) *laneSlots {
	l := &laneSlots{loop: newStateLoop()}
	l.loop.start(&loopState{lanes: newLaneScheduler(limits)})
	t.Cleanup(l.loop.stop)
	return l
}

func (l *laneSlots) status(lane string) (st laneStatus) {
	l.do(func(s *laneScheduler) { st = s.Status(lane) })
	return st
}

func TestAcquireReportsPositionsAndHonoursCancel(t *testing.T) {
	l := startedSlots(t, map[string]int{"lane": 1})
	holder, err := l.acquire(context.Background(), "lane", nil)
	if err != nil {
		t.Fatal(err)
	}
	var second *ticket
	l.do(func(s *laneScheduler) { second = mustEnqueue(t, s, "lane", ownerN(1)) })

	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan int, 10)
	got := make(chan error, 1)
	go func() {
		_, err := l.acquire(ctx, "lane", func(p int) { seen <- p })
		got <- err
	}()
	if p := <-seen; p != 2 {
		t.Fatalf("first position: got %d, want 2", p)
	}
	l.do(func(*laneScheduler) { second.Release() })
	if p := <-seen; p != 1 {
		t.Fatalf("position after the one ahead left: got %d, want 1", p)
	}
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire after cancel: got %v, want context.Canceled", err)
	}
	if st := l.status("lane"); len(st.Waiting) != 0 || len(st.Holding) != 1 {
		t.Errorf("status after the cancel: got %+v, want only the holder", st)
	}
	holder()
	if st := l.status("lane"); len(st.Holding) != 0 {
		t.Errorf("a cancelled waiter got the slot: %+v", st)
	}
}

// TestQueuedRunsAreData: runs queued as data hold their place without a
// goroutine; a release hands the next its slot, and a withdrawn run
// leaves the line, moving those behind it up.
func TestQueuedRunsAreData(t *testing.T) {
	l := startedSlots(t, map[string]int{"lane": 1})
	var applied []laneEffects
	l.apply = func(e laneEffects) { applied = append(applied, e) }
	tk, pos := l.queue(&run{}, "s", "lane", make(chan struct{}))
	if tk == nil || pos != 0 || len(applied) != 0 {
		t.Fatalf("a run queued on a free lane at %d (effects %+v), want its slot at once and no effects", pos, applied)
	}
	holder := func() { l.releaseTicket(tk) }
	runs := []*run{{}, {}, {}}
	var ts []*ticket
	for i, r := range runs {
		tk, pos := l.queue(r, "s", "lane", make(chan struct{}))
		if tk == nil || pos != i+1 {
			t.Fatalf("run %d queued at %d (ticket %v), want %d", i, pos, tk != nil, i+1)
		}
		ts = append(ts, tk)
	}
	if l.withdraw(runs[1]) != ts[1] {
		t.Fatal("a waiting run could not be withdrawn")
	}
	l.do(func(*laneScheduler) { pos = ts[2].Position() })
	if len(applied) != 0 || pos != 2 {
		t.Fatalf("after the withdrawal: effects %+v, the last run at %d; want none, and 2", applied, pos)
	}
	holder()
	l.do(func(*laneScheduler) { pos = ts[2].Position() })
	if len(applied) != 1 || len(applied[0].started) != 1 || applied[0].started[0].run != runs[0] || pos != 1 {
		t.Fatalf("after the release: %+v, the last run at %d; want the first run started and the last at 1", applied, pos)
	}
	if l.withdraw(runs[0]) != nil {
		t.Error("a run holding its slot was withdrawn as if it waited")
	}
	if st := l.status("lane"); len(st.Holding) != 1 || len(st.Waiting) != 1 {
		t.Errorf("status: %+v, want one holding and one waiting", st)
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
	l := startedSlots(t, map[string]int{"lane": 3})
	var active, peak, served atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := l.acquire(context.Background(), "lane", nil)
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
			release()
		}()
	}
	wg.Wait()
	if peak.Load() > 3 || served.Load() != 50 {
		t.Errorf("peak %d, served %d; want at most 3 at once and all 50 served", peak.Load(), served.Load())
	}
}

// TestLaneSlots covers the form the run loop uses.
func TestLaneSlots(t *testing.T) {
	slots := startedSlots(t, map[string]int{"worker": 1})
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

// TestQueuedInstructionsParkNoGoroutine: instructions queued behind a
// busy lane wait as data, not as parked run goroutines, before and after
// a restart: fifty of them leave one run goroutine (the busy one's), each
// says its place, a cancelled one ends without ever running, and the
// others run once the lane is free.
func TestQueuedInstructionsParkNoGoroutine(t *testing.T) {
	const queued = 50
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	cfg := shellConfig(`while [ ! -f ` + gate + ` ]; do sleep 0.05; done`)
	h := startHarness(t, root, cfg)
	first := h.forward("first")
	pid := h.workerPID(first.TaskID)
	var acks []relay.Ack
	for i := range queued {
		acks = append(acks, h.forward(fmt.Sprintf("queued %d", i)))
	}
	h.waitFor("the last run's place", func(e ledger.Event) bool {
		return e.TaskID == acks[queued-1].TaskID && string(payloadRaw(e, "queue_position")) == strconv.Itoa(queued)
	})
	if n := runGoroutines(); n != 1 {
		t.Errorf("%d run goroutines with %d instructions queued behind one run, want 1", n, queued)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlCancel, TaskID: acks[1].TaskID}); err != nil {
		t.Fatal(err)
	}
	if end := h.finished(acks[1].TaskID); end.Payload.String("reason_code") != ReasonCancelled {
		t.Errorf("the cancelled queued run ended %s, want %s", end.Payload.String("reason_code"), ReasonCancelled)
	}

	// The next controller resumes them: the first runs again, the others
	// wait for it as data again.
	h.stop()
	h = startHarness(t, root, cfg)
	h.waitFor("the first run's worker again", func(e ledger.Event) bool {
		return e.TaskID == first.TaskID && e.EventType == ledger.EventStepStarted && string(payloadRaw(e, "pid")) != strconv.Itoa(pid)
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling the status; the condition decides
		st, err := h.client.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		waiting := 0
		for _, r := range st.Runs {
			if r.State == stateWaiting {
				waiting++
			}
		}
		if waiting == queued-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d resumed runs wait for the lane, want %d", waiting, queued-1)
		}
	}
	if n := runGoroutines(); n != 1 {
		t.Errorf("%d run goroutines after the restart, want 1", n)
	}
	os.WriteFile(gate, nil, 0o644)
	for i, a := range acks {
		end := h.finished(a.TaskID)
		if i != 1 && end.Payload.String("status") != ledger.StatusDone {
			t.Errorf("queued run %d ended %s", i, end.Payload.String("status"))
		}
	}
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == acks[1].TaskID && e.EventType == ledger.EventStepStarted
	}); n != 0 {
		t.Errorf("the run cancelled while queued started %d workers", n)
	}
}

// runGoroutines counts the goroutines that drive a run (Controller.execute)
// in this process.
func runGoroutines() int {
	buf := make([]byte, 16<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "controller.(*Controller).execute(")
}

func payloadRaw(e ledger.Event, key string) []byte {
	raw, _ := e.Payload.Get(key)
	return raw
}
