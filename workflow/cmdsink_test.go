package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCommandSinkHearsLines: a program reads the lines in order and sees
// the end of its input at Close.
func TestCommandSinkHearsLines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "heard")
	s, err := StartCommandSink(context.Background(), CommandOptions{Argv: []string{"sh", "-c", "cat > " + out}})
	if err != nil {
		t.Fatal(err)
	}
	cb := &LineCallback{Task: "T", Run: "R", Out: s}
	cb.OnIterationStart(Iteration{N: 1, Max: 2})
	cb.OnAgentStart(AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1})
	cb.OnAgentFailed(AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1}, os.ErrDeadlineExceeded)
	s.Close(5 * time.Second)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"callback":"OnIterationStart"`) ||
		!strings.Contains(lines[1], `"agent":"I1-coder"`) || !strings.Contains(lines[2], `"error":"i/o timeout"`) {
		t.Fatalf("heard %q", data)
	}
	if s.Dropped() != 0 || s.Written() != 3 {
		t.Fatalf("dropped %d, written %d", s.Dropped(), s.Written())
	}
}

// TestCommandSinkEarlyExitReportedOnce: a program that exits at once is
// reported once with its status; lines after it are dropped and
// counted, and Offer never waits.
func TestCommandSinkEarlyExitReportedOnce(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	gone := make(chan struct{}, 8)
	s, err := StartCommandSink(context.Background(), CommandOptions{Argv: []string{"sh", "-c", "exit 3"},
		Gone: func(err error) {
			mu.Lock()
			reports = append(reports, err.Error())
			mu.Unlock()
			gone <- struct{}{}
		}})
	if err != nil {
		t.Fatal(err)
	}
	<-gone
	for range 100 {
		s.Offer([]byte("{}\n"))
	}
	s.Close(5 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || reports[0] != "exit status 3" {
		t.Fatalf("reports %q, want one exit status 3", reports)
	}
	if s.Dropped() != 100 {
		t.Fatalf("dropped %d of 100 lines after the exit", s.Dropped())
	}
}

// TestCommandSinkDeafProgramIsEnded: a program that never reads does
// not hold Offer, and Close ends it (its tree killed) within the grace.
func TestCommandSinkDeafProgramIsEnded(t *testing.T) {
	s, err := StartCommandSink(context.Background(), CommandOptions{Argv: []string{"sleep", "600"}, Queue: 4,
		Gone: func(err error) { t.Errorf("a program Close ended was reported gone: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 4096) + "\n")
	offered := 0
	for s.Offer(line) || offered < 100 {
		offered++ // fills the pipe, then the queue; Offer never waits
		if offered > 1000 {
			break
		}
	}
	if s.Dropped() == 0 {
		t.Fatalf("no line dropped after %d offers to a program that never reads", offered)
	}
	// A full queue: a LineCallback counts its lines dropped unmade.
	before := s.Dropped()
	(&LineCallback{Out: s}).OnText(AgentInfo{StepID: "S1"}, Text{Body: "x"})
	if s.Dropped() != before+1 {
		t.Fatalf("dropped %d after a line to a full sink, want %d", s.Dropped(), before+1)
	}
	pid := s.tree.PID()
	s.Close(100 * time.Millisecond)
	if syscall.Kill(pid, 0) == nil {
		t.Fatal("the deaf program outlived Close")
	}
}
