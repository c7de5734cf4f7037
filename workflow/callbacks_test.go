package workflow

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestSummarizationEveryNToolUsesAndAtEnd(t *testing.T) {
	var mu sync.Mutex
	var got []Summary
	s := NewSummarizationCallback(SummaryOptions{EveryToolUses: 2, Every: -1, Sink: func(sum Summary) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, sum)
	}})
	a := AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1}
	s.OnAgentStart(a)
	s.OnToolUse(a, ToolUse{Name: "edit", Detail: "pkg/api/handler.go"})
	s.OnText(a, Text{Body: "FAIL\texample.com/project/pkg/api\t0.2s"})
	s.OnToolUse(a, ToolUse{Name: "Edit", Detail: "internal/cache/lru.go"})
	s.OnToolUse(a, ToolUse{Name: "Bash", Detail: "go test ./..."})
	s.OnText(a, Text{Body: "ok  \texample.com/project/internal/cache\t0.1s"})
	s.OnAgentEnd(a, Output{})
	if len(got) != 2 {
		t.Fatalf("summaries %+v", got)
	}
	if got[0].Text != "edited 2 files (pkg/api/handler.go, internal/cache/lru.go); tests failing in pkg/api" || got[0].Final {
		t.Fatalf("first summary %q", got[0].Text)
	}
	f := got[1].Facts
	if !got[1].Final || f.Commands != 1 || f.Passing != 1 || !slices.Equal(f.Failing, []string{"pkg/api"}) || f.StepID != "I1-coder" {
		t.Fatalf("final summary %+v", got[1])
	}
}

func TestSummarizationTimer(t *testing.T) {
	got := make(chan Summary, 4)
	s := NewSummarizationCallback(SummaryOptions{EveryToolUses: -1, Every: 5 * time.Millisecond, Sink: func(sum Summary) { got <- sum }})
	a := AgentInfo{StepID: "S1", Role: RoleStep}
	s.OnAgentStart(a)
	s.OnText(a, Text{Kind: TextMessage, Body: "reading the handler"})
	select {
	case sum := <-got:
		if sum.Text != "reading the handler" || sum.Final {
			t.Fatalf("timed summary %+v", sum)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no summary from the timer")
	}
	s.OnAgentEnd(a, Output{})
}

func TestCommandSummarizer(t *testing.T) {
	sum, err := CommandSummarizer{Argv: []string{"sh", "-c", "wc -l | tr -d ' '"}}.Summarize(context.Background(), Facts{}, []string{"a", "b"})
	if err != nil || sum.Text != "2" || sum.By != "command" {
		t.Fatalf("summary %+v %v", sum, err)
	}
	sum, err = CommandSummarizer{Argv: []string{"false"}}.Summarize(context.Background(), Facts{Edited: []string{"x.go"}}, nil)
	if err == nil || sum.By != "extractive" || sum.Text != "edited 1 file (x.go)" {
		t.Fatalf("fallback %+v %v", sum, err)
	}
}

// The metrics add up the increments the controller hands them: two
// processes of one step (a resumed Claude session) add, and so do the
// cache counts.
func TestMetricsAddUpIncrements(t *testing.T) {
	var got []Metrics
	m := NewMetricsCallback(Cost{CostUSD: 1}, func(x Metrics) { got = append(got, x) })
	claude := AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1}
	m.OnIterationStart(Iteration{N: 1})
	m.OnAgentStart(claude)
	m.OnText(claude, Text{Kind: TextResult, Usage: &Usage{InputTokens: 10, CacheReadTokens: 4, OutputTokens: 5, CostUSD: 0.10}})
	m.OnText(claude, Text{Kind: TextResult, Usage: &Usage{InputTokens: 30, CacheCreationTokens: 2, OutputTokens: 9, CostUSD: 0.25}})
	m.OnAgentEnd(claude, Output{})
	codex := AgentInfo{StepID: "I1-reviewer", Role: RoleReviewer, Iteration: 1}
	m.OnAgentStart(codex)
	m.OnText(codex, Text{Kind: TextResult, Usage: &Usage{InputTokens: 100, OutputTokens: 10}})
	m.OnText(codex, Text{Kind: TextResult, Usage: &Usage{InputTokens: 50, OutputTokens: 5}})
	m.OnAgentFailed(codex, errBoom)
	if len(got) != 2 {
		t.Fatalf("metrics %+v", got)
	}
	if want := (Cost{InputTokens: 40, CacheReadTokens: 4, CacheCreationTokens: 2, OutputTokens: 14, CostUSD: 0.35}); got[0].Step != want {
		t.Fatalf("claude step %+v, want %+v", got[0].Step, want)
	}
	if got[1].Step != (Cost{InputTokens: 150, OutputTokens: 15}) || got[1].Iter.InputTokens != 190 || got[1].Run.CostUSD != 1.35 {
		t.Fatalf("codex step %+v", got[1])
	}
}
