package tui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// loaded100k is a 200×60 window that has been fed 100,000 events (the
// pane keeps the newest 5,000) plus the fixture ledger.
func loaded100k(b *testing.B) *Model {
	m := newTestModel(b, testOptions("zh-CN"), 200, 60)
	feed(m, fixtureUpdate(100))
	batch := fixtureEvents(1000)
	for i := range 100 {
		for j := range batch {
			batch[j].EventID = fmt.Sprintf("evt_%d_%d", i, j)
		}
		feed(m, live.LedgerUpdate{Events: batch})
	}
	if m.Events().Total() != 100_100 {
		b.Fatalf("total %d", m.Events().Total())
	}
	m.View()
	return m
}

// BenchmarkView200x60With100kEvents measures the frame the window draws
// after one new event, the common case while following a ledger: the
// event pane redraws (its cached rows make that cheap), the other panes
// return their memoized frames. It also reports, as separate metrics,
// a frame with nothing new and a full redraw after a resize.
func BenchmarkView200x60With100kEvents(b *testing.B) {
	m := loaded100k(b)
	one := fixtureEvents(1)
	const rounds = 200 // enough samples even under -benchtime=1x
	var perEvent, idle, full time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			one[0].EventID = fmt.Sprintf("evt_b_%d_%d", i, r)
			m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: one}})
			start := time.Now()
			_ = m.View()
			perEvent += time.Since(start)

			start = time.Now()
			_ = m.View()
			idle += time.Since(start)

			m.Update(tea.WindowSizeMsg{Width: 200 - r%2, Height: 60})
			start = time.Now()
			_ = m.View()
			full += time.Since(start)
		}
	}
	n := float64(b.N * rounds)
	b.ReportMetric(float64(perEvent.Microseconds())/1000/n, "ms/frame")
	b.ReportMetric(float64(idle.Microseconds())/1000/n, "ms/idle-frame")
	b.ReportMetric(float64(full.Microseconds())/1000/n, "ms/full-redraw")
}

// BenchmarkIngest measures taking one burst of 1,000 events into the
// window (Update only).
func BenchmarkIngest(b *testing.B) {
	m := newTestModel(b, testOptions("en"), 200, 60)
	batch := fixtureEvents(1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(live.LedgerMsg{Update: live.LedgerUpdate{Events: batch}})
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/burst")
}

var _ = ledger.EventSystem
