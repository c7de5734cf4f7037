package outbox

import (
	"context"
	"testing"
)

// BenchmarkAppend measures one comment per transaction (one event each),
// the outbox's write path; the goal is at least 2,000 events/s.
func BenchmarkAppend(b *testing.B) {
	s := openTest(b)
	ctx := context.Background()
	id := mustApply(b, s, Change{Actor: "a", Ops: []Op{{Kind: OpOpen, Title: "x"}}}).Issues[0]
	c := Change{Actor: "ann", Ops: []Op{{Kind: OpComment, Issue: id, Body: "a comment of ordinary length for the benchmark"}}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Apply(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadEvents measures reading the log in pages of 1,000, the
// path of a Lead catching up.
func BenchmarkReadEvents(b *testing.B) {
	s := openTest(b)
	ctx := context.Background()
	id := mustApply(b, s, Change{Actor: "a", Ops: []Op{{Kind: OpOpen, Title: "x"}}}).Issues[0]
	ops := make([]Op, 1000)
	for i := range ops {
		ops[i] = Op{Kind: OpComment, Issue: id, Body: "c"}
	}
	for range 10 {
		mustApply(b, s, Change{Actor: "a", Ops: ops})
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		var after int64
		for {
			evs, err := s.Events(ctx, after, 1000)
			if err != nil {
				b.Fatal(err)
			}
			if len(evs) == 0 {
				break
			}
			n += len(evs)
			after = evs[len(evs)-1].ID
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
