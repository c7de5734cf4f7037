package proc

import (
	"os"
	"testing"
	"time"
)

// TestCPUTimeMovesWhileComputing: a process's CPU time reads, and grows
// while it computes; a process that is gone reads as nothing.
func TestCPUTimeMovesWhileComputing(t *testing.T) {
	first, ok := CPUTime(os.Getpid())
	if !ok {
		t.Fatal("this process's CPU time cannot be read")
	}
	end := time.Now().Add(deadline)
	for n := 0; ; n++ {
		if now, _ := CPUTime(os.Getpid()); now > first {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the CPU time stayed %v while this process computed for %v", first, deadline)
		}
		for i := range 1 << 20 {
			n += i & 1
		}
	}
	if _, ok := CPUTime(1 << 30); ok {
		t.Error("the CPU time of a pid that cannot exist reads")
	}
}
