package lead

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

const tenRoles = `
[roles.r0]
[roles.r1]
[roles.r2]
[roles.r3]
[roles.r4]
[roles.r5]
[roles.r6]
[roles.r7]
[roles.r8]
[roles.r9]
`

// backlog fills the outbox with n events of a ten-role team: issues
// addressed round-robin to r0…r9 (closed, so that no Worker starts) and
// comments on them; a tenth of it concerns r0.
func backlog(b *testing.B, p *project, n int) {
	ctx := context.Background()
	const issues = 1000
	ops := make([]outbox.Op, 0, issues)
	for i := range issues {
		ops = append(ops, outbox.Op{Kind: outbox.OpOpen, Title: fmt.Sprintf("issue %d", i), Labels: []string{fmt.Sprintf("to:r%d", i%10)}})
	}
	r, err := p.ob.Apply(ctx, outbox.Change{Actor: "ann", Ops: ops})
	if err != nil {
		b.Fatal(err)
	}
	ops = ops[:0]
	for _, id := range r.Issues {
		ops = append(ops, outbox.Op{Kind: outbox.OpClose, Issue: id})
	}
	p.do("ann", ops...)
	left := n - 2*issues
	for left > 0 {
		batch := min(left, 5000)
		ops = ops[:0]
		for k := range batch {
			id := r.Issues[(left-k)%issues]
			ops = append(ops, outbox.Op{Kind: outbox.OpComment, Issue: id, Body: fmt.Sprintf("note %d\nTrigger: B-%d", left-k, left-k)})
		}
		p.do("bob", ops...)
		left -= batch
	}
}

// BenchmarkCatchUp100k: a Lead starting behind a backlog of 100,000
// events (a tenth of them addressed to it, each acknowledged in its own
// transaction) reads and handles all of it. Goal: under 5 s.
func BenchmarkCatchUp100k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		p := newProject(b, tenRoles, time.Hour)
		backlog(b, p, 100_000)
		l := p.lead("r0", 1, nil)
		b.StartTimer()
		start := time.Now()
		n, err := l.Step(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/catch-up")
		b.ReportMetric(float64(n), "effects")
	}
}

// BenchmarkCommentToLead measures, 200 times per iteration, the time from
// a person's comment committed (by another connection) to the Lead having
// committed its answer. Goals: median under 50 ms, p99 under 200 ms.
func BenchmarkCommentToLead(b *testing.B) {
	p := newProject(b, tenRoles, outbox.DefaultWakeInterval)
	id := p.file("talk", "", "to:r0")
	p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: id})
	lb, err := outbox.OpenSQLite(p.wf.DBPath(), outbox.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Closed after the Lead's end (cleanups run last first), which
	// writes its cursor through it.
	b.Cleanup(func() { lb.Close() })
	acted := make(chan int64, 1)
	l := p.lead("r0", 1, func(o *Options) {
		o.Backend = lb
		o.OnEffect = func(ev outbox.Event) { acted <- ev.Comment }
	})
	runLead(b, l)
	var lat []time.Duration
	seq := 0
	for b.Loop() {
		for range 200 {
			seq++
			start := time.Now()
			r, err := p.ob.Apply(context.Background(), outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "ping\nTrigger: L-" + strconv.Itoa(seq)}}})
			if err != nil {
				b.Fatal(err)
			}
			for got := range acted {
				if got == r.Comments[0] {
					break
				}
			}
			lat = append(lat, time.Since(start))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99")
}

// BenchmarkIdleLeads10: ten Lead processes with nothing to do, over 10 s;
// reports their CPU in percent of one core (goal: under 1 %).
func BenchmarkIdleLeads10(b *testing.B) {
	p := newProject(b, tenRoles, outbox.DefaultWakeInterval)
	var cmds []*exec.Cmd
	for i := range 10 {
		cmd := exec.Command(os.Args[0], "lead", p.dir, fmt.Sprintf("r%d", i))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	// Started: every Lead has published its status once.
	p.waitFor("ten statuses", 30*time.Second, func() bool {
		m, _ := filepath.Glob(filepath.Join(roster.StatusDir(p.wf), "*.json"))
		return len(m) == 10
	})
	for b.Loop() {
		before := cpuTime(b, cmds)
		start := time.Now()
		timer := time.NewTimer(10 * time.Second)
		<-timer.C
		used := cpuTime(b, cmds) - before
		b.ReportMetric(100*used.Seconds()/time.Since(start).Seconds(), "%core")
	}
}

// cpuTime is the CPU the processes have used so far, every thread's
// (/proc/<pid>/task/*/schedstat, in nanoseconds: the clock ticks of
// /proc/<pid>/stat are 10 ms, a tenth of the whole budget of ten idle
// Leads over 10 s).
func cpuTime(b *testing.B, cmds []*exec.Cmd) time.Duration {
	var total time.Duration
	for _, c := range cmds {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", c.Process.Pid))
		if err != nil || len(tasks) == 0 {
			b.Skip("no /proc")
		}
		for _, f := range tasks {
			data, err := os.ReadFile(f)
			if err != nil {
				continue // a thread that ended meanwhile
			}
			ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}
