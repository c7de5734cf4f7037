package workflow

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeAgent answers from a script: what it says in each iteration.
type fakeAgent struct {
	name string
	role Role
	// answer returns the output for an invocation; nil means empty.
	answer func(inv Invocation) (Output, error)
	mu     sync.Mutex
	calls  []Invocation
	log    *[]string // shared order of calls, if set
	lines  int       // extra lines of output per run
}

func (a *fakeAgent) Name() string { return a.name }
func (a *fakeAgent) Role() Role   { return a.role }
func (a *fakeAgent) Run(_ context.Context, inv Invocation) (Output, error) {
	a.mu.Lock()
	a.calls = append(a.calls, inv)
	if a.log != nil {
		*a.log = append(*a.log, inv.StepID)
	}
	a.mu.Unlock()
	inv.Observe.Text(Text{Body: "working on " + inv.StepID})
	inv.Observe.ToolUse(ToolUse{Name: "edit", Detail: "pkg/api/handler.go"})
	for i := 0; i < a.lines; i++ {
		inv.Observe.Text(Text{Body: fmt.Sprintf("line %d", i)})
	}
	if a.answer == nil {
		return Output{Text: "done"}, nil
	}
	return a.answer(inv)
}

func coder(log *[]string) *fakeAgent { return &fakeAgent{name: "coder", role: RoleCoder, log: log} }

// reviewer approves from iteration approveAt on (never when 0).
func reviewer(log *[]string, approveAt int) *fakeAgent {
	return &fakeAgent{name: "reviewer", role: RoleReviewer, log: log, answer: func(inv Invocation) (Output, error) {
		if approveAt > 0 && inv.Iteration >= approveAt {
			return Output{Text: "lgtm", Verdict: &Verdict{Decision: Approve, Reason: "tests cover it"}}, nil
		}
		return Output{Text: "changes", Verdict: &Verdict{Decision: RequestChanges, Reason: "missing case",
			Findings: []string{fmt.Sprintf("handler.go: handle the empty body (iteration %d)", inv.Iteration)}}}, nil
	}}
}

var errBoom = errors.New("boom")

// recorder is a callback that keeps every call as a line.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, s)
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

func (r *recorder) OnAgentStart(a AgentInfo)         { r.add("start " + a.StepID) }
func (r *recorder) OnToolUse(a AgentInfo, t ToolUse) { r.add("tool " + a.StepID) }
func (r *recorder) OnText(a AgentInfo, t Text)       { r.add("text " + a.StepID) }
func (r *recorder) OnToolResult(a AgentInfo, _ ToolResult) {
	r.add("tool result " + a.StepID)
}
func (r *recorder) OnAgentEnd(a AgentInfo, o Output) { r.add("end " + a.StepID) }
func (r *recorder) OnAgentFailed(a AgentInfo, err error) {
	r.add("failed " + a.StepID)
}
func (r *recorder) OnIterationStart(it Iteration) {
	r.add(fmt.Sprintf("iter-start %d resumed=%v", it.N, it.Resumed))
}
func (r *recorder) OnIterationEnd(it Iteration, res IterationResult) {
	r.add(fmt.Sprintf("iter-end %d done=%v code=%s", it.N, res.Decision.Done, res.Decision.Code))
}

// benchDispatchLines sends b.N lines of worker output through d in bursts
// of 64, lets the callbacks catch up between bursts (outside the timer),
// stops d and reports the median cost of one line as median-ns/line.
func benchDispatchLines(b *testing.B, d *dispatcher) DispatchStats {
	b.Helper()
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
	return st
}
