package proc

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's own CPU time (user and system): the
// runtime's cost, apart from the machine's load and the children's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-us/op")
}

// BenchmarkRun is the runtime's cost per child around a fork of true:
// plain exec (the floor), the runtime without cgroups (a group and the
// marker) and with them (a cgroup made, entered, killed and removed).
func BenchmarkRun(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for range b.N {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	s := NewScope(b.TempDir())
	b.Cleanup(s.Close)
	ctx := WithScope(context.Background(), s)
	run := func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for range b.N {
			if o := Run(ctx, exec.Command("true"), 0); o.Err != nil {
				b.Fatal(o.Err)
			}
		}
	}
	if cgroupBase() != "" {
		b.Run("cgroup", run)
	}
	b.Run("group", func(b *testing.B) {
		was := cgroups.off.Swap(true)
		defer cgroups.off.Store(was)
		run(b)
	})
}
