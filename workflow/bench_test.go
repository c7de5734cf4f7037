package workflow

import (
	"context"
	"testing"
)

// BenchmarkDispatchLine is the cost callback dispatch adds to one line of
// worker output with three callbacks attached that do nothing: the goal
// is under 1 µs at the median and no allocation per line. Lines come in
// bursts of 64, after which the callbacks catch up (outside the timer);
// ns/op is the mean, median-ns/line the median over the bursts.
func BenchmarkDispatchLine(b *testing.B) {
	d := startDispatcher([]Callback{NopCallback{}, NopCallback{}, NopCallback{}}, DefaultQueue)
	st := benchDispatchLines(b, d)
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

// BenchmarkDispatchLineDeafCommand is BenchmarkDispatchLine with one of
// the three callbacks a command of [[workflow.callbacks]] that never
// reads its stdin: what it cannot take is dropped (reported as
// dropped/line), and the line's hand-off costs the run what it costs
// with callbacks that keep up (the goal: under 1 µs at the median).
func BenchmarkDispatchLineDeafCommand(b *testing.B) {
	sink, err := StartCommandSink(context.Background(), CommandOptions{Argv: []string{"sleep", "3600"}, Queue: DefaultQueue})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close(0)
	deaf := &LineCallback{Task: "T1", Run: "R1", Out: sink}
	d := startDispatcher([]Callback{NopCallback{}, NopCallback{}, deaf}, DefaultQueue)
	st := benchDispatchLines(b, d)
	b.ReportMetric(float64(sink.Dropped())/float64(b.N), "deaf-dropped/line")
	if st.Abandoned > 0 {
		b.Fatalf("a deaf command held dispatch at the flow's end: %+v", st)
	}
}

// BenchmarkLoopIterationDeafCommand is BenchmarkLoopIteration with the
// no-op callback replaced by a command of [[workflow.callbacks]] that
// never reads its stdin: the loop's cost per iteration stays what it is
// with callbacks that keep up (compare the two µs/iteration).
func BenchmarkLoopIterationDeafCommand(b *testing.B) {
	const iterations = 100
	sink, err := StartCommandSink(context.Background(), CommandOptions{Argv: []string{"sleep", "3600"}, Queue: DefaultQueue})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := NewLoop(SinglePass(instant{"coder", RoleCoder}, instant{"reviewer", RoleReviewer}), ReviewerApproved{}, iterations)
		l.AddCallback(NewSummarizationCallback(SummaryOptions{Sink: func(Summary) {}}))
		l.AddCallback(NewMetricsCallback(Cost{}, func(Metrics) {}))
		l.AddCallback(&LineCallback{Task: "T1", Run: "R1", Out: sink})
		res, err := l.Run(context.Background(), Task{Text: "bench"})
		if err != nil || res.Iterations != iterations || res.Dispatch.Abandoned > 0 {
			b.Fatal(res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*iterations), "µs/iteration")
	b.ReportMetric(float64(sink.Dropped())/float64(b.N*iterations), "deaf-dropped/iteration")
}
