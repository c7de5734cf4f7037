package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// status shows the run's tokens with their cached part and where it
// stands against its budget, in words and in --json.
func TestStatusShowsCacheAndBudget(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := ledger.NewPipelineState(time.Now())
	p.TaskID, p.RunID, p.Goal, p.Status, p.CurrentStep = "DKT-1", "RUN-1", "spend", ledger.StatusBlocked, "S2"
	p.Steps = []ledger.Step{{ID: "S2", Title: "S2", Category: "implementation", Goal: "g"}}
	p.RoleLifecycle = p.RoleLifecycle.With(workflow.KeyInputTokens, "10546").With(workflow.KeyOutputTokens, "72").
		With(workflow.KeyCacheReadTokens, "8000").With(workflow.KeyCacheCreationTokens, "200").
		With(workflow.KeyCostUSD, "0.040272").With(workflow.KeyBudgetUSD, "0.03").With(workflow.KeyBudgetState, "exceeded")
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for lang, want := range map[string]string{
		"en":    "Usage so far: 10546 input and 72 output tokens, $0.0403 · (of the input: 8000 cache read, 200 cache write) · budget $0.03 spent",
		"zh-CN": "目前用量：输入 10546 个、输出 72 个令牌，$0.0403 · （输入中：缓存读取 8000，缓存写入 200） · 预算 $0.03 已用完",
	} {
		if r := runCLI(t, nil, "status", "--root", root, "--lang", lang); !strings.Contains(r.stdout, want) {
			t.Errorf("status (%s) lacks %q:\n%s", lang, want, r.stdout)
		}
	}
	j := runCLI(t, nil, "status", "--root", root, "--json")
	var doc struct {
		Workflow struct {
			Metrics map[string]any `json:"metrics"`
		} `json:"workflow"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, j.stdout)
	}
	m := doc.Workflow.Metrics
	if m["cache_read_tokens"] != 8000.0 || m["budget_usd"] != 0.03 || m["budget_state"] != "exceeded" {
		t.Fatalf("status --json metrics %v", m)
	}
}
