package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/daokit/daokit/i18n"

	"github.com/daokit/daokit/worker/transcript"
)

func runSim(t *testing.T, o SimOptions) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = RunSim(context.Background(), o, &out, &errb)
	return code, out.String(), errb.String()
}

// decodeAll decodes sim output into event descriptions, failing on any
// line the protocol does not understand (plain lines are skipped).
func decodeAll(t *testing.T, out string) []transcript.Event {
	t.Helper()
	var events []transcript.Event
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		d := transcript.ProtocolDecoder{}.Decode(transcript.Stdout, []byte(line))
		if d.Status == transcript.StatusUnknown || d.Status == transcript.StatusMalformed {
			t.Errorf("sim printed a %s line: %q", d.Status, line)
		}
		events = append(events, d.Events...)
	}
	return events
}

func countType(events []transcript.Event, typ transcript.EventType) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func TestSimIsDeterministic(t *testing.T) {
	base := SimOptions{Instruction: "add a --json flag to status", Seed: 7, Lines: 20}
	code1, out1, err1 := runSim(t, base)
	code2, out2, err2 := runSim(t, base)
	if code1 != 0 || code2 != 0 || out1 != out2 || err1 != err2 {
		t.Fatalf("two runs with the same options differ (codes %d, %d)", code1, code2)
	}
	for name, o := range map[string]SimOptions{
		"other seed":        {Instruction: base.Instruction, Seed: 8, Lines: 20},
		"other instruction": {Instruction: "fix the login bug", Seed: 7, Lines: 20},
	} {
		if _, out, _ := runSim(t, o); out == out1 {
			t.Errorf("%s: got the same output, want a different run", name)
		}
	}
}

func TestSimSpeaksTheProtocol(t *testing.T) {
	code, out, errOut := runSim(t, SimOptions{Instruction: "add a flag", Lines: 10})
	if code != 0 || errOut != "" {
		t.Fatalf("got code %d stderr %q, want 0 and nothing", code, errOut)
	}
	events := decodeAll(t, out)
	if events[0].Type != transcript.EventSession || !strings.HasPrefix(events[0].ID, "sim-") {
		t.Errorf("first event: got %s, want the session", fmt.Sprintf("%+v", events[0]))
	}
	last := events[len(events)-1]
	if last.Type != transcript.EventResult || last.Failed || !strings.Contains(last.Text, "add a flag") {
		t.Errorf("last event: got %s, want a successful result naming the instruction", fmt.Sprintf("%+v", last))
	}
	if got := countType(events, transcript.EventProgress); got != 10 {
		t.Errorf("progress lines: got %d, want --lines 10", got)
	}
	if countType(events, transcript.EventTool) == 0 || countType(events, transcript.EventMessage) != 1 {
		t.Errorf("got %d tool and %d message events, want some tools and one message", countType(events, transcript.EventTool), countType(events, transcript.EventMessage))
	}
}

func TestSimSpeaksChinese(t *testing.T) {
	zh, err := i18n.New(i18n.Chinese)
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ := runSim(t, SimOptions{Instruction: "修复登录错误", Loc: zh})
	if !strings.Contains(out, "正在规划：修复登录错误") || !strings.Contains(out, "正在阅读") {
		t.Errorf("Chinese run: got %q, want Chinese progress lines", out)
	}
}

func TestSimFailureAndCrash(t *testing.T) {
	code, out, _ := runSim(t, SimOptions{Instruction: "x", ExitCode: 3, Lines: 8})
	events := decodeAll(t, out)
	last := events[len(events)-1]
	if code != 3 || last.Type != transcript.EventResult || !last.Failed || countType(events, transcript.EventError) != 1 {
		t.Errorf("--exit-code 3: got code %d, last %s; want 3 and a failed result after an error", code, fmt.Sprintf("%+v", last))
	}
	if !strings.Contains(out, "--- FAIL") {
		t.Errorf("--exit-code 3: simulated tests did not fail: %q", out)
	}

	code, out, errOut := runSim(t, SimOptions{Instruction: "x", Crash: true, CrashAfter: 3})
	if code != SimCrashCode || !strings.Contains(errOut, "Simulated crash after 3 lines") {
		t.Errorf("--crash: got code %d stderr %q, want %d and the crash line", code, errOut, SimCrashCode)
	}
	if strings.HasSuffix(out, "\n") || strings.Contains(out, `"type":"result"`) {
		t.Errorf("--crash: stdout %q should end in a cut-off line and have no result", out)
	}
	if code, _, _ := runSim(t, SimOptions{Instruction: "x", Crash: true, ExitCode: 9}); code != 9 {
		t.Errorf("--crash --exit-code 9: got %d, want 9", code)
	}
}

// syncBuffer is a bytes.Buffer safe to read while RunSim writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSimHangAndSilent run in a synctest bubble: "stays alive" is checked
// by letting fake time pass with nothing printed.
func TestSimHangAndSilent(t *testing.T) {
	tests := []struct {
		name      string
		o         SimOptions
		wantLines int // lines printed before the hang
	}{
		{"hang after 2", SimOptions{Instruction: "x", Hang: true, HangAfter: 2}, 2 + 2},
		{"hang at half", SimOptions{Instruction: "x", Hang: true, Lines: 6}, 2 + 3},
		{"silent", SimOptions{Instruction: "x", Silent: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				var out syncBuffer
				done := make(chan int)
				go func() { done <- RunSim(ctx, tt.o, &out, io.Discard) }()
				time.Sleep(time.Hour) // fake time: an hour of nothing
				synctest.Wait()
				select {
				case code := <-done:
					t.Fatalf("RunSim returned %d during the hang", code)
				default:
				}
				got := strings.Count(out.String(), "\n")
				if got != tt.wantLines {
					t.Errorf("lines before the hang: got %d, want %d:\n%s", got, tt.wantLines, out.String())
				}
				cancel()
				if code := <-done; code != SimCancelledCode {
					t.Errorf("after cancel: got %d, want %d", code, SimCancelledCode)
				}
				if after := strings.Count(out.String(), "\n"); after != got {
					t.Errorf("printed %d more lines after the hang", after-got)
				}
			})
		})
	}
}

func TestSimPacingAndHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		start := time.Now()
		o := SimOptions{Instruction: "x", Lines: 1, Duration: 5 * time.Second}
		if code := RunSim(context.Background(), o, &out, io.Discard); code != 0 {
			t.Fatalf("code %d", code)
		}
		if got := time.Since(start); got != o.Duration {
			t.Errorf("run took %v of fake time, want %v", got, o.Duration)
		}
		// Two pauses of 2.5s each, filled with heartbeats every second:
		// 2 per pause, plus the one after the session line.
		if got := countType(decodeAll(t, out.String()), transcript.EventHeartbeat); got != 5 {
			t.Errorf("heartbeats: got %d, want 5", got)
		}
	})
}

func TestSimFlood(t *testing.T) {
	code, out, _ := runSim(t, SimOptions{Instruction: "flood", FloodLines: 5000})
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var flood []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Flood line ") {
			flood = append(flood, l)
		}
	}
	if len(flood) != 5000 || flood[0] != "Flood line 1 for: flood" || flood[4999] != "Flood line 5000 for: flood" {
		t.Errorf("flood lines: got %d (%q … %q), want 1 … 5000", len(flood), flood[0], flood[len(flood)-1])
	}
	if !strings.Contains(lines[len(lines)-1], `"type":"result"`) {
		t.Errorf("last line: got %q, want the result", lines[len(lines)-1])
	}
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		start := time.Now()
		RunSim(context.Background(), SimOptions{Instruction: "f", FloodFor: time.Second, FloodRate: 1000}, &out, io.Discard)
		if got := time.Since(start); got < time.Second || got > time.Second+10*time.Millisecond {
			t.Errorf("paced flood took %v of fake time, want about 1s", got)
		}
		if n := strings.Count(out.String(), "Flood line "); n < 990 || n > 1010 {
			t.Errorf("paced flood printed %d lines in 1s at 1000/s", n)
		}
	})
}
