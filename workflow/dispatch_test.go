package workflow

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// usageOnly is a recorder that wants only the lines that report usage.
type usageOnly struct{ recorder }

func (*usageOnly) WantsText(t Text) bool { return t.Usage != nil }
func (*usageOnly) WantsToolUse() bool    { return false }

// A LineFilter hears only the lines it wants, and every other event.
func TestALineFilterHearsOnlyTheLinesItWants(t *testing.T) {
	d := startDispatcher([]Callback{&usageOnly{}}, DefaultQueue)
	o := &Observer{d: d, a: AgentInfo{StepID: "S1"}}
	d.send(event{kind: evAgentStart, agent: o.a})
	o.Text(Text{Body: "plain"})
	o.ToolUse(ToolUse{Name: "Edit"})
	o.Text(Text{Body: "costly", Usage: &Usage{OutputTokens: 3}})
	o.ToolResult(ToolResult{ID: "t1"})
	if st := d.stop(time.Second); st != (DispatchStats{}) {
		t.Fatalf("stats %+v, want nothing dropped", st)
	}
	got := d.subs[0].cb.(*usageOnly).get()
	if !slices.Equal(got, []string{"start S1", "text S1", "tool result S1"}) {
		t.Fatalf("heard %v, want the start, the costly line and the result", got)
	}
}

// A flow that has sent nothing to its callbacks (one waiting for its
// lane) holds no goroutine for them, and one that has caught up holds
// none any more.
func TestIdleCallbacksHoldNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	d := startDispatcher([]Callback{NopCallback{}, NopCallback{}, NopCallback{}}, DefaultQueue)
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines for callbacks that heard nothing", n-before)
	}
	o := &Observer{d: d, a: AgentInfo{StepID: "S1"}}
	o.Text(Text{Body: "a line"})
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after the callbacks caught up", runtime.NumGoroutine()-before)
		}
		runtime.Gosched()
	}
	d.stop(time.Second)
}
