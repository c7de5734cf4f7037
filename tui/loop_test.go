package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/workflow"
)

// loopUpdate is the ledger of a demo loop in its second and last
// iteration, as the controller writes it: the pipeline's loop keys, the
// reviewer's verdict, a step summary and the judge's decision.
func loopUpdate() live.LedgerUpdate {
	p := ledger.NewPipelineState(fixedNow)
	p.TaskID, p.RunID, p.Goal = "DK-0000BEEF", "DK-0000BEEF_20261122T092000Z", "add a --json flag to status"
	p.Status, p.CurrentStep = ledger.StatusExecute, "I2-reviewer"
	for _, id := range []string{"I1-coder", "I1-reviewer", "I1-judge", "I2-coder", "I2-reviewer"} {
		p.Steps = append(p.Steps, ledger.Step{ID: id, Title: id, Category: "implementation", Goal: p.Goal})
	}
	p.RoleLifecycle = ledger.Lifecycle{}.With("orchestrator", "running").
		With(workflow.KeyIteration, "2").With(workflow.KeyMax, "2").With(workflow.KeyAgent, "reviewer").
		With(workflow.KeyVerdict, "approve").With(workflow.KeyVerdictReason, "tests cover the empty body").
		With("step:I2-reviewer", "completed").
		With(workflow.KeyInputTokens, "1200").With(workflow.KeyOutputTokens, "340").With(workflow.KeyCostUSD, "0.0425").
		With(workflow.KeyCacheReadTokens, "800").With(workflow.KeyCacheCreationTokens, "100").
		With(workflow.KeyBudgetUSD, "0.05").With(workflow.KeyBudgetState, "warning")
	ev := func(d time.Duration, step, op string, kv ...any) ledger.Event {
		return ledger.NewEvent(fixedNow.Add(d), p.TaskID, p.RunID, step, ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf(append([]any{"operation", op}, kv...)...))
	}
	facts := ledger.ObjectOf("step_id", "I2-coder", "role", "coder", "edited", []string{"pkg/api/handler.go", "pkg/api/handler_test.go"},
		"tool_uses", 2, "commands", 0, "tests_run", true, "passing", 0, "failing", []string{"pkg/api"},
		"denied", []string{"Bash go build ./..."}, "last", "")
	events := []ledger.Event{
		ev(time.Second, "I1-reviewer", workflow.OpReviewVerdict, "iteration", 1, "role", "reviewer", "verdict", "request_changes",
			"reason", "2 problems", "findings", []string{"handler.go:17: empty body"}, "escalate", false),
		ev(2*time.Second, "I2-coder", workflow.OpStepSummary, "iteration", 2, "role", "coder", "text", "edited 2: …",
			"by", "extractive", "final", true, "facts", facts),
		ev(3*time.Second, "I2-reviewer", workflow.OpReviewVerdict, "iteration", 2, "role", "reviewer", "verdict", "approve",
			"reason", "tests cover the empty body", "findings", []string{}, "escalate", false),
		ev(4*time.Second, "I2-judge", workflow.OpIterationFinished, "iteration", 2, "max_iterations", 2, "verdict", "approve",
			"judge", "reviewer_approved", "decision", "done", "reason_code", workflow.JudgeReviewerApproved, "reason", "tests cover the empty body"),
	}
	s := fixtureSnapshot()
	s.Pipeline.Value = p
	return live.LedgerUpdate{Snapshot: s, Events: events, ReadAt: fixedNow}
}

// The window shows where the loop stands (iteration 2/2, who works, the
// verdict) and, in its conversation, the verdicts, a step summary worded
// in the reader's language and the judge's decision.
func TestWindowShowsTheLoop(t *testing.T) {
	for lang, want := range map[string][]string{
		"en": {"iteration 2/2 · reviewer", "approved — tests cover the empty body",
			"I2-coder (coder): edited 2: pkg/api/handler.go, pkg/api/handler_test.go; tests failing in pkg/api; denied 1: Bash",
			"I1-reviewer review: changes requested — 2 problems", "handler.go:17: empty body",
			"iteration 2/2: done (the reviewer approved)", "1200 in / 340 out tokens · $0.0425", "(of the input: 800 cache read, 100 cache write)", "over 80 % of the budget $0.05"},
		"zh-CN": {"第 2/2 轮 · 评审者", "已批准 — tests cover the empty body",
			"I2-coder（编码者）：编辑了 2 个文件：pkg/api/handler.go, pkg/api/handler_test.go；pkg/api 中有测试失败；被拒绝 1",
			"I1-reviewer 评审：要求修改 — 2 problems", "第 2/2 轮：完成（评审者已批准）", "输入 1200 / 输出 340 令牌 · $0.0425", "（输入中：缓存读取 800，缓存写入 100）", "已用掉预算 $0.05 的 80% 以上"},
	} {
		t.Run(lang, func(t *testing.T) {
			m := newTestModel(t, testOptions(lang), 200, 60)
			feed(m, fixtureUpdate(0))
			feed(m, loopUpdate())
			view := m.View()
			for _, s := range want {
				if !strings.Contains(view, s) {
					t.Errorf("the window lacks %q:\n%s", s, view)
				}
			}
		})
	}
}
