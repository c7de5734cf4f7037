package controller

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
)

var owner = Owner{TaskID: "DK-1", RunID: "DK-1_R", StepID: "S1"}

// legal is the state machine written out independently of the table in
// runstate.go, as "from>to".
var legal = map[string]bool{
	"idle>waiting": true, "idle>failed": true, "idle>cancelled": true,
	"waiting>requesting": true, "waiting>failed": true, "waiting>cancelled": true,
	"requesting>generating": true, "requesting>failed": true, "requesting>cancelled": true, "requesting>timedOut": true,
	"generating>persisting": true, "generating>failed": true, "generating>cancelled": true, "generating>timedOut": true,
	"persisting>completed": true, "persisting>failed": true, "persisting>cancelled": true, "persisting>timedOut": true,
}

// pathTo is a legal way from idle to each state.
var pathTo = map[string][]string{
	stateIdle:       nil,
	stateWaiting:    {stateWaiting},
	stateRequesting: {stateWaiting, stateRequesting},
	stateGenerating: {stateWaiting, stateRequesting, stateGenerating},
	statePersisting: {stateWaiting, stateRequesting, stateGenerating, statePersisting},
	stateCompleted:  {stateWaiting, stateRequesting, stateGenerating, statePersisting, stateCompleted},
	stateFailed:     {stateFailed},
	stateCancelled:  {stateCancelled},
	stateTimedOut:   {stateWaiting, stateRequesting, stateTimedOut},
}

func lifecycleIn(t *testing.T, state string) *lifecycle {
	t.Helper()
	l, err := newLifecycle(owner, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pathTo[state] {
		if err := l.To(s, "TEST_REASON"); err != nil {
			t.Fatalf("path to %s: %v", state, err)
		}
	}
	return l
}

// TestEveryTransition checks all 81 (from, to) pairs, legal and illegal.
func TestEveryTransition(t *testing.T) {
	for _, from := range states() {
		for _, to := range states() {
			want := legal[from+">"+to]
			if got := canTransition(from, to); got != want {
				t.Errorf("CanTransition(%s, %s): got %v, want %v", from, to, got, want)
			}
			l := lifecycleIn(t, from)
			err := l.To(to, "TEST_REASON")
			if want {
				if err != nil || l.State() != to {
					t.Errorf("%s → %s: got %v, state %s; want the move", from, to, err, l.State())
				}
				continue
			}
			var te *transitionError
			if !errors.As(err, &te) || !errors.Is(err, errIllegalTransition) || te.From != from || te.To != to || te.Owner != owner {
				t.Errorf("%s → %s: got %v, want a *TransitionError naming the owner", from, to, err)
			}
			if l.State() != from {
				t.Errorf("%s → %s refused but state changed to %s", from, to, l.State())
			}
		}
	}
	err := checkTransition(stateCompleted, stateIdle)
	var te *transitionError
	if !errors.As(err, &te) || !errors.Is(err, errIllegalTransition) {
		t.Fatalf("checkTransition(completed, idle): got %v", err)
	}
	if got := te.Localize(i18n.MustNew(i18n.Chinese)); got != "非法的运行状态变更 completed → idle" {
		t.Errorf("Localize: got %q", got)
	}
	if canTransition("bogus", stateFailed) || canTransition(stateIdle, "bogus") {
		t.Error("unknown states must have no transitions")
	}
}

func TestTerminalStates(t *testing.T) {
	for _, s := range states() {
		terminal := s == stateCompleted || s == stateFailed || s == stateCancelled || s == stateTimedOut
		if isTerminal(s) != terminal {
			t.Errorf("IsTerminal(%s): got %v, want %v", s, isTerminal(s), terminal)
		}
		if terminal && len(transitions[s]) != 0 {
			t.Errorf("terminal %s has exits %v", s, transitions[s])
		}
		if !terminal && !(canTransition(s, stateFailed) && canTransition(s, stateCancelled)) {
			t.Errorf("%s cannot fail or be cancelled: a run in it could never end", s)
		}
	}
}

func TestLifecycleBasics(t *testing.T) {
	if _, err := newLifecycle(Owner{TaskID: "T", RunID: "R"}, nil); !errors.Is(err, errNoOwner) {
		t.Errorf("NewLifecycle without a step: got %v, want ErrNoOwner", err)
	}
	clock := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	l, _ := newLifecycle(owner, func() time.Time { clock = clock.Add(time.Second); return clock })
	if err := l.To(stateFailed, ""); !errors.Is(err, errNoReason) || l.State() != stateIdle {
		t.Errorf("fail without a reason: got %v, state %s; want ErrNoReason and idle", err, l.State())
	}
	for _, s := range []string{stateWaiting, stateRequesting, stateGenerating} {
		if err := l.To(s, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, ok := l.Outcome(); ok {
		t.Error("Outcome of a running run: got ok")
	}
	select {
	case <-l.Done():
		t.Error("Done closed before the end")
	default:
	}
	if err := l.To(stateTimedOut, ""); err != nil {
		t.Fatal(err)
	}
	<-l.Done()
	if state, reason, ok := l.Outcome(); !ok || state != stateTimedOut || reason != ReasonTimeout {
		t.Errorf("Outcome: got %s %s %v, want timedOut %s", state, reason, ok, ReasonTimeout)
	}
	h := l.History()
	if len(h) != 4 || h[0].From != stateIdle || h[3].To != stateTimedOut || !h[3].At.After(h[0].At) {
		t.Errorf("history: got %+v", h)
	}
	if l.Owner() != owner || !strings.Contains(owner.String(), "DK-1/DK-1_R/S1") {
		t.Errorf("owner: got %v", l.Owner())
	}
}

// TestRandomEventsEndInOneTerminalState is the property test: whatever
// sequence of moves is attempted, refused ones change nothing, the
// history is a legal path, a terminal state is never left, and a run can
// always be ended, after which it has exactly one terminal state.
func TestRandomEventsEndInOneTerminalState(t *testing.T) {
	targets := append(states(), "bogus", "")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20_000 {
		l, _ := newLifecycle(owner, nil)
		n := rng.IntN(12)
		for range n {
			before := l.State()
			to := targets[rng.IntN(len(targets))]
			err := l.To(to, "R")
			if (err == nil) != canTransition(before, to) {
				t.Fatalf("sequence %d: %s → %s: got %v", i, before, to, err)
			}
			if isTerminal(before) && l.State() != before {
				t.Fatalf("sequence %d: left terminal %s for %s", i, before, l.State())
			}
		}
		if !isTerminal(l.State()) {
			end := []string{stateFailed, stateCancelled}[rng.IntN(2)]
			if err := l.To(end, "END"); err != nil {
				t.Fatalf("sequence %d: cannot end from %s: %v", i, l.State(), err)
			}
		}
		checkHistory(t, i, l.History())
	}
}

func checkHistory(t *testing.T, seq int, h []transition) {
	t.Helper()
	terminals := 0
	prev := stateIdle
	for j, tr := range h {
		if tr.From != prev || !canTransition(tr.From, tr.To) {
			t.Fatalf("sequence %d: step %d %s → %s does not follow %s", seq, j, tr.From, tr.To, prev)
		}
		if isTerminal(tr.To) {
			terminals++
			if j != len(h)-1 {
				t.Fatalf("sequence %d: terminal %s at step %d of %d", seq, tr.To, j, len(h))
			}
		}
		prev = tr.To
	}
	if terminals != 1 || len(h) > 5 {
		t.Fatalf("sequence %d: %d terminal states in %d steps, want exactly 1 in at most 5", seq, terminals, len(h))
	}
}

// TestConcurrentEndings: many goroutines try to end the same run; exactly
// one wins.
func TestConcurrentEndings(t *testing.T) {
	for range 200 {
		l := lifecycleIn(t, stateGenerating)
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for _, end := range []string{statePersisting, stateFailed, stateCancelled, stateTimedOut, stateFailed, stateCancelled} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if l.To(end, "R") == nil && isTerminal(end) {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if !isTerminal(l.State()) {
			if err := l.To(stateFailed, "R"); err != nil {
				t.Fatal(err)
			}
			wins++
		}
		if wins != 1 {
			t.Fatalf("got %d terminal transitions, want 1", wins)
		}
		checkHistory(t, 0, l.History())
	}
}

// states lists every run state in path order, terminal states last.
func states() []string {
	return []string{stateIdle, stateWaiting, stateRequesting, stateGenerating, statePersisting,
		stateCompleted, stateFailed, stateCancelled, stateTimedOut}
}
