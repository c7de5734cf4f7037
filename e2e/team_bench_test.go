package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// BenchmarkRealLeads1000OpenIssues: ten `daokit lead` processes (the
// binary as built, ten roles) over 1,000 open issues, a hundred each,
// every one claimed and blocked by an open issue nobody works on.
// Reports their CPU over 20 s with nothing to do (percent of one core,
// from the threads' schedstat; goal ≤ 0.3 %), and the largest Lead's
// resident memory (VmRSS; goal ≤ 25 MB) with its share of it (Pss: the
// binary's pages are shared by every Lead) and what is its alone.
func BenchmarkRealLeads1000OpenIssues(b *testing.B) {
	root := newRoot(b, "[team]\noutbox_root = \"team\"\n")
	dir := filepath.Join(root, "team")
	os.MkdirAll(dir, 0o755)
	var wf strings.Builder
	for i := range 10 {
		fmt.Fprintf(&wf, "[roles.r%d]\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(wf.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if r := run(b, "outbox", "init", "--root", root); r.code != 0 {
		b.Fatal(r.stderr)
	}
	w, err := team.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(w.DBPath(), outbox.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ob.Close()
	ctx := context.Background()
	g, err := ob.Apply(ctx, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "the gate"}}})
	if err != nil {
		b.Fatal(err)
	}
	ops := make([]outbox.Op, 0, 1000)
	for i := range 1000 {
		ops = append(ops, outbox.Op{Kind: outbox.OpOpen, Title: fmt.Sprintf("issue %d", i), Body: fmt.Sprintf("DependsOn: #%d", g.Issues[0]),
			Labels: []string{fmt.Sprintf("to:r%d", i%10)}})
	}
	if _, err := ob.Apply(ctx, outbox.Change{Actor: "ann", Ops: ops}); err != nil {
		b.Fatal(err)
	}
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for i := range 10 {
		cmd := exec.Command(daokit, "lead", "--root", root, "--role", fmt.Sprintf("r%d", i))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	settled := func() bool {
		for i := range 10 {
			st, err := roster.ReadStatus(roster.StatusDir(w), fmt.Sprintf("r%d", i))
			if err != nil || len(st.Blocked) != 100 {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(120 * time.Second); !settled(); {
		if time.Now().After(deadline) {
			b.Fatal("the ten Leads did not block their 100 issues each")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
	// Idle is the Leads' steady state: the tail of their start-up (the
	// status of the pass that blocked the last issue, the start-up pages
	// given back) is over within a beat's fraction, not part of it.
	tail := time.NewTimer(2 * time.Second)
	<-tail.C
	for b.Loop() {
		before := threadsCPU(b, cmds)
		start := time.Now()
		idle := time.NewTimer(20 * time.Second)
		<-idle.C
		b.ReportMetric(100*(threadsCPU(b, cmds)-before).Seconds()/time.Since(start).Seconds(), "%core-idle")
		var rss, pss, own int
		for _, c := range cmds {
			m := memOf(b, c.Process.Pid)
			if m["Rss:"] > rss {
				rss, pss, own = m["Rss:"], m["Pss:"], m["Private_Dirty:"]+m["Private_Clean:"]
			}
		}
		b.ReportMetric(float64(rss)/1024, "MiB-rss-max")
		b.ReportMetric(float64(pss)/1024, "MiB-pss")
		b.ReportMetric(float64(own)/1024, "MiB-private")
	}
}

// threadsCPU is the CPU the processes' threads have used so far.
func threadsCPU(b *testing.B, cmds []*exec.Cmd) time.Duration {
	var total time.Duration
	for _, c := range cmds {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", c.Process.Pid))
		if len(tasks) == 0 {
			b.Skip("no /proc")
		}
		for _, f := range tasks {
			if data, err := os.ReadFile(f); err == nil {
				ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
				total += time.Duration(ns)
			}
		}
	}
	return total
}

// memOf reads a process's memory summary (/proc/<pid>/smaps_rollup), in
// KiB by field ("Rss:", "Pss:", …).
func memOf(b *testing.B, pid int) map[string]int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		b.Skip("no smaps_rollup")
	}
	m := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "kB" {
			m[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	return m
}
