package tui

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// benchTasks is how many tasks the task list benchmarks keep in the list.
const benchTasks = 200

// taskEvents are the events of n tasks: each received, generating, with
// a cost; every fourth waits for review.
func taskEvents(n int, at time.Time) []ledger.Event {
	var out []ledger.Event
	for i := range n {
		task, run := fmt.Sprintf("DK-%04d", i), fmt.Sprintf("DK-%04d_R", i)
		ev := func(op string, kv ...any) {
			out = append(out, ledger.NewEvent(at, task, run, "I1-coder", ledger.EventSystem, ledger.SeverityInfo,
				ledger.ObjectOf(append([]any{"operation", op}, kv...)...)))
		}
		ev("INSTRUCTION_RECEIVED", "message_id", "m"+strconv.Itoa(i), "text", "instruction number "+strconv.Itoa(i),
			"received_at", ledger.FormatTime(at))
		ev("RUN_STATE", "from", "waiting", "to", "generating")
		ev("STEP_METRICS", "iteration", 1, "run_total", ledger.ObjectOf("cost_usd", 0.01*float64(i)))
		if i%4 == 0 {
			ev("REVIEW_PENDING", "branch", "daokit/"+task)
		}
	}
	return out
}

// shownTasks is how many of the newest tasks the open list shows at
// 200×60 (with room to spare): the benchmarks change their rows, so that
// every event changes the frame.
const shownTasks = 40

// stateChange is an event that changes the row of one of the shown
// tasks (the newest first), picked by i: its run state moves, to a state
// that depends on n.
func stateChange(i, n int) ledger.Event {
	to := "persisting" // the tasks start generating: the first change shows
	if n%2 == 1 {
		to = "generating"
	}
	task := fmt.Sprintf("DK-%04d", benchTasks-1-i%shownTasks)
	return ledger.NewEvent(time.Now(), task, task+"_R", "I1-coder", ledger.EventSystem, ledger.SeverityInfo,
		ledger.ObjectOf("operation", "RUN_STATE", "from", "generating", "to", to))
}

// BenchmarkViewWith200Tasks measures, in process, the frame after one
// event that changes a row of the open task list holding 200 tasks (the
// list redraws), and the same with the list closed (the panes draw).
func BenchmarkViewWith200Tasks(b *testing.B) {
	for _, open := range []bool{true, false} {
		b.Run("list-open="+strconv.FormatBool(open), func(b *testing.B) {
			m := newTestModel(b, testOptions("zh-CN"), 200, 60)
			feed(m, fixtureUpdate(100))
			feed(m, live.LedgerUpdate{Events: taskEvents(benchTasks, fixedNow)})
			if m.Tasks().Len() != benchTasks+1 { // and the fixture pipeline's task
				b.Fatalf("%d tasks", m.Tasks().Len())
			}
			if open {
				m.Update(tea.KeyMsg{Type: tea.KeyF4})
			}
			m.View()
			const rounds = 200
			var perEvent time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for r := range rounds {
					m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: []ledger.Event{stateChange(r, (i*rounds+r)/shownTasks)}}})
					start := time.Now()
					_ = m.View()
					perEvent += time.Since(start)
				}
			}
			b.ReportMetric(float64(perEvent.Microseconds())/1000/float64(b.N*rounds), "ms/frame")
		})
	}
}

// BenchmarkAppendToFrameLatencyWith200Tasks is BenchmarkAppendToFrameLatency
// (on-demand painting, the default) with 200 tasks in the list, the list
// open or closed: each appended event moves the run state of a task the
// open list shows, so the list redraws for every event. It reports the
// time from each append to the frame that first shows it reaching the
// terminal.
func BenchmarkAppendToFrameLatencyWith200Tasks(b *testing.B) {
	root, st := millionLedger(b)
	if err := st.AppendEvents(taskEvents(benchTasks, time.Now().Add(-time.Minute))); err != nil {
		b.Fatal(err)
	}
	for _, open := range []bool{true, false} {
		b.Run("list-open="+strconv.FormatBool(open), func(b *testing.B) { appendToTaskFrame(b, root, st, open) })
	}
}

func appendToTaskFrame(b *testing.B, root string, st *ledger.Store, open bool) {
	const rate, seconds = 200, 3
	clock := newFrameClock()
	opts := testOptions("en")
	opts.Probe = clock
	opts.Styles = nil
	var msgs []tea.Msg
	if open {
		msgs = append(msgs, tea.KeyMsg{Type: tea.KeyF4})
	}
	stop := liveOnDemandThen(b, root, opts, clock, msgs...)
	defer stop()
	clock.waitFirstFrame(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tick := time.NewTicker(time.Second / rate)
		for n := 0; n < rate*seconds; n++ {
			<-tick.C
			ev := stateChange(n, i*rate*seconds/shownTasks+n/shownTasks)
			ev.EventID = fmt.Sprintf("evt_tasks_%t_%d_%d", open, i, n)
			clock.append(ev.EventID, time.Now())
			if err := st.AppendEvent(ev); err != nil {
				b.Fatal(err)
			}
		}
		tick.Stop()
	}
	reportFrames(b, clock, b.N*rate*seconds)
}
