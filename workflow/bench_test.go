package workflow

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkDispatchLine is the cost callback dispatch adds to one line of
// worker output with three callbacks attached that do nothing: the goal
// is under 1 µs at the median and no allocation per line. Lines come in
// bursts of 64, after which the callbacks catch up (outside the timer);
// ns/op is the mean, median-ns/line the median over the bursts.
func BenchmarkDispatchLine(b *testing.B) {
	d := startDispatcher([]Callback{NopCallback{}, NopCallback{}, NopCallback{}}, DefaultQueue)
	o := &Observer{d: d, a: AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1}}
	t := Text{Body: "ok  \texample.com/project/pkg/api\t0.12s"}
	const batch = 64
	var per []float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		n := min(batch, b.N-i)
		start := time.Now()
		for range n {
			o.Text(t)
		}
		per = append(per, float64(time.Since(start).Nanoseconds())/float64(n))
		i += n
		// Let the callbacks catch up before the next batch, as they do
		// between the bursts of a real worker: this measures the hand-off,
		// not the drop path of a flooded queue.
		b.StopTimer()
		for _, s := range d.subs {
			for s.backlog.Load() > 0 {
				runtime.Gosched()
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	st := d.stop(time.Second)
	slices.Sort(per)
	b.ReportMetric(per[len(per)/2], "median-ns/line")
	// Lines a no-op callback could not keep up with (shed, not waited for).
	b.ReportMetric(float64(st.Dropped)/float64(3*b.N), "dropped/line")
}

// instant is an agent that finishes at once, saying one line.
type instant struct {
	name string
	role Role
}

func (a instant) Name() string { return a.name }
func (a instant) Role() Role   { return a.role }
func (a instant) Run(_ context.Context, inv Invocation) (Output, error) {
	inv.Observe.Text(Text{Body: "ok"})
	if a.role == RoleReviewer {
		return Output{Verdict: &Verdict{Decision: RequestChanges, Findings: []string{"f"}}}, nil
	}
	return Output{}, nil
}

// BenchmarkLoopIteration is the workflow machinery's own cost per loop
// iteration (coder, reviewer, judge; memory, brief, three callbacks:
// summaries, metrics and a no-op), with agents that cost nothing. The
// controller's per-step durability (events, leases, pipeline writes) is
// measured end to end by e2e's BenchmarkLoop100Iterations.
func BenchmarkLoopIteration(b *testing.B) {
	const iterations = 100
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l := NewLoop(SinglePass(instant{"coder", RoleCoder}, instant{"reviewer", RoleReviewer}), ReviewerApproved{}, iterations)
		l.AddCallback(NewSummarizationCallback(SummaryOptions{Sink: func(Summary) {}}))
		l.AddCallback(NewMetricsCallback(Cost{}, func(Metrics) {}))
		l.AddCallback(NopCallback{})
		res, err := l.Run(context.Background(), Task{Text: "bench"})
		if err != nil || res.Iterations != iterations {
			b.Fatal(res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*iterations), "µs/iteration")
}
