package lead

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// BenchmarkTenLeads1000OpenIssues: ten Lead processes (ten roles) over
// 1,000 open issues, a hundred each, every one claimed and blocked by an
// open issue nobody works on. Reports, per iteration: their CPU over 10 s
// with nothing to do, in percent of one core (goal ≤ 0.3 %); the largest
// Lead's resident memory (goal ≤ 25 MB); and, for 200 comments with a
// Trigger to r0 while all ten run, the time from the comment committed
// to r0's answer seen by another process (goal ≤ 5 ms median), and the
// CPU all ten Leads spent per trigger.
func BenchmarkTenLeads1000OpenIssues(b *testing.B) {
	p := newProject(b, tenRoles, outbox.DefaultWakeInterval)
	ctx := context.Background()
	gate := p.file("the gate", "")
	ops := make([]outbox.Op, 0, 1000)
	for i := range 1000 {
		ops = append(ops, outbox.Op{Kind: outbox.OpOpen, Title: fmt.Sprintf("issue %d", i), Body: fmt.Sprintf("DependsOn: #%d", gate),
			Labels: []string{fmt.Sprintf("to:r%d", i%10)}})
	}
	p.do("ann", ops...)
	talk := p.file("talk", "", "to:r0")
	p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: talk})

	var cmds []*exec.Cmd
	for i := range 10 {
		cmd := exec.Command(os.Args[0], "lead", p.dir, fmt.Sprintf("r%d", i))
		cmd.Stderr = os.Stderr
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
	// Settled: every Lead holds its hundred issues blocked and has read
	// everything.
	p.waitFor("ten Leads with 100 blocked issues each", 120*time.Second, func() bool {
		head, _ := p.ob.Head(ctx)
		for i := range 10 {
			st, err := roster.ReadStatus(roster.StatusDir(p.wf), fmt.Sprintf("r%d", i))
			if err != nil || len(st.Blocked) != 100 || st.Cursor != head {
				return false
			}
		}
		return true
	})
	watcher, err := outbox.OpenSQLite(p.wf.DBPath(), outbox.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer watcher.Close()
	seq := 0
	for b.Loop() {
		before := cpuTime(b, cmds)
		start := time.Now()
		idle := time.NewTimer(10 * time.Second)
		<-idle.C
		used := cpuTime(b, cmds) - before
		b.ReportMetric(100*used.Seconds()/time.Since(start).Seconds(), "%core-idle")
		rss := 0
		for _, c := range cmds {
			rss = max(rss, rssKiB(b, c.Process.Pid))
		}
		b.ReportMetric(float64(rss)/1024, "MiB-rss-max")

		var lat []time.Duration
		before = cpuTime(b, cmds)
		before0 := cpuTime(b, cmds[:1])
		const triggers = 200
		for range triggers {
			seq++
			key := "Trigger: T-" + strconv.Itoa(seq)
			head, err := watcher.Head(ctx)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: talk, Body: "ping\n" + key})
			awaitAnswer(b, watcher, head, key)
			lat = append(lat, time.Since(start))
		}
		spent := cpuTime(b, cmds) - before
		b.ReportMetric(float64((cpuTime(b, cmds[:1])-before0).Microseconds())/1000/triggers, "ms-r0-cpu/trigger")
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99")
		b.ReportMetric(float64(spent.Microseconds())/1000/triggers, "ms-lead-cpu/trigger")
	}
}

// awaitAnswer waits, on the outbox's own notification, for a Lead's
// comment past after that carries key.
func awaitAnswer(b *testing.B, ob *outbox.SQLite, after int64, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		evs, err := ob.Events(ctx, after, 100)
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range evs {
			if ev.Kind == outbox.EventCommented && roster.IsLead(ev.Actor) && strings.Contains(ev.Body, key) {
				return
			}
			after = ev.ID
		}
		if len(evs) == 0 {
			if err := ob.Wait(ctx, after); err != nil {
				b.Fatalf("no answer to %q: %v", key, err)
			}
		}
	}
}

// rssKiB is process pid's resident memory (VmRSS) in KiB.
func rssKiB(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc")
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
