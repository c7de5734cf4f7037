package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
)

// tickAt delivers the clock tick at fixedNow+d and runs what it starts.
func tickAt(m *Model, d time.Duration) {
	_, cmd := m.Update(live.TickMsg{Now: fixedNow.Add(d)})
	runQuickNoTick(m, cmd)
}

// runQuickNoTick is runQuick for a tick's commands: the re-armed tick
// (which fires at once in tests) is not followed.
func runQuickNoTick(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 1000; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil, live.TickMsg:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// TestSuccessorStartsWithoutAKey: a controller the window started is
// killed; the banner names the signal (no empty detail) and when the
// successor comes, and the window starts it by itself, backing off, and
// gives up after MaxAutoStarts, leaving ctrl+r.
func TestSuccessorStartsWithoutAKey(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 160, 48)
	if ctrl.started != 1 {
		t.Fatalf("%d starts at open, want 1", ctrl.started)
	}
	pid := 4001
	var at time.Duration
	for try := 1; try <= link.MaxAutoStarts; try++ {
		_, cmd := m.Update(live.ExitedMsg{PID: pid, Exit: live.Exit{Code: -1, Signal: "SIGKILL"}})
		runQuick(m, cmd)
		v := m.View()
		if !strings.Contains(v, "The controller was killed by SIGKILL.") || strings.Contains(v, ": .") {
			t.Fatalf("try %d: exit not told plainly:\n%s", try, v)
		}
		wait := min(time.Second<<(try-1), 30*time.Second)
		if want := "(try " + strconv.Itoa(try) + " of 5)"; !strings.Contains(v, want) {
			t.Fatalf("try %d: banner lacks %q:\n%s", try, want, v)
		}
		tickAt(m, at+wait-time.Second/2)
		if ctrl.started != try {
			t.Fatalf("try %d started before its backoff of %v", try, wait)
		}
		at += wait
		tickAt(m, at)
		if ctrl.started != try+1 || m.LinkState().Phase != link.Waiting {
			t.Fatalf("try %d: %d starts, phase %v after %v", try, ctrl.started, m.LinkState().Phase, wait)
		}
		pid++
	}
	_, cmd := m.Update(live.ExitedMsg{PID: pid, Exit: live.Exit{Code: 1, Output: "lock held"}})
	runQuick(m, cmd)
	tickAt(m, at+time.Hour)
	v := m.View()
	if ctrl.started != link.MaxAutoStarts+1 || !strings.Contains(v, "Gave up after 5 tries: press ctrl+r") {
		t.Fatalf("%d starts after the tries were used up:\n%s", ctrl.started, v)
	}
	press(t, m, "ctrl+r")
	if ctrl.started != link.MaxAutoStarts+2 {
		t.Errorf("ctrl+r did not start one after giving up")
	}
}

// TestLostControllerIsProbedBeforeASuccessor: when the connection to a
// controller the window did not start drops, the window probes: a live
// one is waited for, a dead one gets a successor.
func TestLostControllerIsProbedBeforeASuccessor(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{probe: live.Probe{Live: true, PID: 777}}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 160, 48)
	relay := func(c live.ConnState) {
		_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Conn: &c}})
		runQuick(m, cmd)
	}
	relay(live.ConnState{Phase: live.ConnConnected})
	relay(live.ConnState{Phase: live.ConnReconnecting, Attempt: 1, Err: &live.Error{Code: "unavailable"}})
	tickAt(m, time.Second)
	if ctrl.started != 0 || m.LinkState().Phase != link.Lost {
		t.Fatalf("a live controller was replaced: %d starts, phase %v", ctrl.started, m.LinkState().Phase)
	}
	ctrl.mu.Lock()
	ctrl.probe = live.Probe{PID: 777} // it died
	ctrl.mu.Unlock()
	tickAt(m, 3*time.Second)
	if ctrl.started != 1 || m.LinkState().Phase != link.Waiting {
		t.Fatalf("no successor for a dead controller: %d starts, phase %v", ctrl.started, m.LinkState().Phase)
	}
}

// TestHeartbeatNeverContradictsItself: a file that still says RUNNING
// but has not been written for longer than the stale threshold is shown
// as not updated, not as a live worker.
func TestHeartbeatNeverContradictsItself(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		m := newTestModel(t, testOptions(lang), 160, 48)
		u := fixtureUpdate(0)
		hb := &u.Snapshot.Heartbeat.Value
		hb.Status, hb.ReasonCode = "RUNNING", ""
		hb.LastHeartbeatAt = ts(-30 * time.Minute)
		feed(m, u)
		v := m.View()
		alive := m.env.Labels.Get(component.KindHeartbeat, "RUNNING")
		unwritten := m.env.T("tui.heartbeat.unwritten", "Age", m.env.Duration(30*time.Minute))
		if alive == "" || strings.Contains(v, alive) || !strings.Contains(v, unwritten) {
			t.Errorf("%s: heartbeat pane says %q or lacks %q:\n%s", lang, alive, unwritten, v)
		}
		checkFrame(t, v, 160, 48, lang)
	}
}
