package controller

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// The streams streamLane prints are real captures of Claude Code 2.1.332
// and Codex 0.169.0 run against daokit's scripted model, kept with the
// decoder's tests (worker/transcript/testdata; capture/README.md there
// says how each was made): name is a path below that folder, without
// ".jsonl".

// streamLane is a lane of kind (claude or codex) whose worker prints
// the captured stream first, and, when it is resumed, the stream second.
// A first process that must be resumed exits 1 after its stream (a crash
// the restart policy handles).
func streamLane(t *testing.T, name string, kind config.Kind, first, second string) config.Lane {
	t.Helper()
	path := func(s string) string {
		p, err := filepath.Abs(filepath.Join(realStreams, s+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	l := config.DefaultLaneConfig(name, kind)
	script := `cat >/dev/null; cat "$FIRST"; if [ -f "$FIRST_ERR" ]; then cat "$FIRST_ERR" >&2; fi`
	if second != "" {
		script += "; exit 1"
		l.ResumeCommand = []string{"sh", "-c", `cat >/dev/null; cat "$SECOND"`}
		l.Env = config.Env{"SECOND=" + path(second)}
	}
	l.Command = []string{"sh", "-c", script}
	l.Env = append(l.Env, "FIRST="+path(first), "FIRST_ERR="+strings.TrimSuffix(path(first), ".jsonl")+".stderr")
	l.Stdin = true
	l.Isolation = config.IsolationNone
	return l
}

func streamConfig(lanes ...config.Lane) config.Config {
	cfg := shellConfig("true")
	cfg.Lanes = lanes
	cfg.Workflow.Steps = nil
	for i, l := range lanes {
		cfg.Workflow.Steps = append(cfg.Workflow.Steps, config.Step{ID: "S" + string(rune('1'+i)), Lane: l.Name})
	}
	return cfg
}

// stepCost reads the STEP_METRICS of step.
func stepCost(t *testing.T, events []ledger.Event, step string) workflow.Cost {
	t.Helper()
	for _, e := range events {
		if op(e) == opStepMetrics && e.StepID == step {
			raw, _ := e.Payload.Get("step")
			var c workflow.Cost
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no STEP_METRICS of %s", step)
	return workflow.Cost{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// A Claude coder whose "go test" failed is summarized as failing, from
// the tool result's exit and FAIL lines; one whose Edit and Bash were
// denied has edited nothing, lists the denials and fails the run.
func TestSummaryReadsRealToolResults(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := streamConfig(streamLane(t, "tests", config.KindClaude, "real/claude-test-fails", ""),
		streamLane(t, "denied", config.KindClaude, "real/claude-denied-default", ""))
	h := startHarness(t, root, cfg)
	// The denied step fails the run (AGENT_PERMISSION_DENIED); its
	// summary still says what happened.
	fin := h.finished(h.forward("run the tests").Route.TaskID)
	if fin.Payload.String("reason_code") != ReasonAgentDenied {
		t.Fatalf("run ended %v", fin.Payload)
	}
	final := map[string]ledger.Event{}
	for _, e := range h.events() {
		if raw, _ := e.Payload.Get("final"); op(e) == opStepSummary && string(raw) == "true" {
			final[e.StepID] = e
		}
	}
	tests, denied := final["S1"], final["S2"]
	if got := tests.Payload.String("text"); !strings.Contains(got, "tests failing in TestBroken, example.com/m") || strings.Contains(got, "passing") {
		t.Fatalf("summary of the failing tests: %q", got)
	}
	text := denied.Payload.String("text")
	if strings.Contains(text, "edited") || !strings.Contains(text, "denied 2: Edit /tmp/cap/proj/hello.txt, Bash echo hi > out.txt && go build ./...") {
		t.Fatalf("summary of the denied step: %q", text)
	}
	raw, _ := denied.Payload.Get("facts")
	var facts workflow.Facts
	if err := json.Unmarshal(raw, &facts); err != nil || len(facts.Edited) != 0 || len(facts.Denied) != 2 || facts.Commands != 0 {
		t.Fatalf("facts %s (%v)", raw, err)
	}
}

// A Claude step resumed in a second process costs what both processes
// cost: 2.1.332 reports the session's total_cost_usd (0.029144) and the
// process's own share apart; neither process is counted twice or lost.
// Its input tokens include the cache reads and writes.
func TestResumedClaudeStepCostsBothProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, streamConfig(streamLane(t, "claude", config.KindClaude, "real/claude-resume-1", "real/claude-resume-2")))
	fin := h.finished(h.forward("two parts").Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	events := h.events()
	if n := count(events, func(e ledger.Event) bool { return op(e) == opSessionResume && e.Payload.String("decision") == "resume" }); n != 1 {
		t.Fatalf("%d resumes, want 1", n)
	}
	c := stepCost(t, events, "S1")
	// (2346+8000+200) + (3100+10100+100) input tokens, 72+40 output.
	want := workflow.Cost{InputTokens: 23846, CacheReadTokens: 18100, CacheCreationTokens: 300, OutputTokens: 112}
	if !near(c.CostUSD, 0.029144) || c.InputTokens != want.InputTokens || c.CacheReadTokens != want.CacheReadTokens ||
		c.CacheCreationTokens != want.CacheCreationTokens || c.OutputTokens != want.OutputTokens {
		t.Fatalf("step cost %+v, want $0.029144 and %+v", c, want)
	}
	prog := workflow.ProgressOf(ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle.Get)
	if !near(prog.Cost.CostUSD, 0.029144) || prog.Cost.CacheReadTokens != 18100 {
		t.Fatalf("run's cost in the pipeline %+v", prog.Cost)
	}
}

// Codex after "exec resume" reports the thread's running total (5900
// input tokens = 2200 + 3700): the step counts it once, and the thread's
// last total is kept in the pipeline with its session, for a successor.
func TestResumedCodexStepTakesTheThreadDelta(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, streamConfig(streamLane(t, "codex", config.KindCodex, "real/codex-resume-1", "real/codex-resume-2")))
	if fin := h.finished(h.forward("two parts").Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	c := stepCost(t, h.events(), "S1")
	if c.InputTokens != 5900 || c.CacheReadTokens != 900 || c.OutputTokens != 90 {
		t.Fatalf("step cost %+v, want the thread's 5900/900/90", c)
	}
	lc := ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle
	if got := lc.Get(keySessionUsage + "codex"); got != "01a215e7-26c1-7453-b335-64ee5ff62dde 5900 900 90" {
		t.Fatalf("recorded thread total %q", got)
	}
}

// The budget: a warning past 80 %, then the run stops BLOCKED with
// BUDGET_EXCEEDED before the step that would spend more; a retry grants
// another budget_usd, says so, and the run finishes.
func TestBudgetWarnsThenBlocks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	l := streamLane(t, "claude", config.KindClaude, "real/claude-resume-1", "") // $0.013424 a step
	cfg := streamConfig(l, l, l, l)
	for i := range cfg.Workflow.Steps {
		cfg.Workflow.Steps[i].Lane = "claude"
	}
	cfg.Lanes = cfg.Lanes[:1]
	cfg.Workflow.BudgetUSD = 0.03
	h := startHarness(t, root, cfg)
	ack := h.forward("spend")
	fin := h.finished(ack.Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusBlocked || fin.Payload.String("reason_code") != ReasonBudgetExceeded {
		t.Fatalf("run ended %v", fin.Payload)
	}
	events := h.events()
	var ops []string
	for _, e := range events {
		switch {
		case op(e) == opBudgetWarning || op(e) == opBudgetExceeded:
			ops = append(ops, e.StepID+":"+op(e))
		case e.EventType == ledger.EventStepStarted:
			ops = append(ops, e.StepID+":started")
		}
	}
	want := "S1:started,S2:started,S2:BUDGET_WARNING,S3:started,S4:BUDGET_EXCEEDED"
	if strings.Join(ops, ",") != want {
		t.Fatalf("events %v, want %s", ops, want)
	}
	prog := workflow.ProgressOf(ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle.Get)
	if prog.BudgetState != "exceeded" || prog.Budget != 0.03 {
		t.Fatalf("budget in the pipeline: %v %q", prog.Budget, prog.BudgetState)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlRetry, TaskID: ack.Route.TaskID, RunID: ack.Route.RunID}); err != nil {
		t.Fatal(err)
	}
	ext := h.waitFor("BUDGET_EXTENDED", func(e ledger.Event) bool { return op(e) == opBudgetExtended })
	spent, _ := ext.Payload.Get("spent_usd")
	to, _ := ext.Payload.Get("to_usd")
	var s, u float64
	if json.Unmarshal(spent, &s) != nil || json.Unmarshal(to, &u) != nil || !near(s, 3*0.013424) || !near(u, 3*0.013424+0.03) {
		t.Fatalf("extension %v", ext.Payload)
	}
	h.waitFor("RUN_FINISHED DONE", func(e ledger.Event) bool {
		return op(e) == opRunFinished && e.Payload.String("status") == ledger.StatusDone
	})
	if n := count(h.events(), func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted }); n != 4 {
		t.Fatalf("%d steps started, want 4 (none twice)", n)
	}
}

// The thread's last total survives a controller restart: a Codex step
// stopped by the shutdown after its first turn is resumed by the next
// controller ("exec resume"), whose running total counts only above it.
func TestCodexThreadTotalSurvivesARestart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	lane := streamLane(t, "codex", config.KindCodex, "real/codex-resume-1", "real/codex-resume-2")
	lane.Command = []string{"sh", "-c", `cat >/dev/null; cat "$FIRST"; exec sleep 30`}
	h := startHarness(t, root, streamConfig(lane))
	ack := h.forward("two parts")
	const first = "01a215e7-26c1-7453-b335-64ee5ff62dde 2200 300 50"
	deadline := time.Now().Add(20 * time.Second)
	for ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle.Get(keySessionUsage+"codex") != first {
		if time.Now().After(deadline) {
			t.Fatalf("the first turn's total never reached the pipeline")
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	h.stop()
	h = startHarness(t, root, streamConfig(lane))
	if fin := h.finished(ack.Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("resumed run ended %v", fin.Payload)
	}
	var last workflow.Cost
	for _, e := range h.events() {
		if op(e) == opStepMetrics && e.StepID == "S1" {
			raw, _ := e.Payload.Get("step")
			if err := json.Unmarshal(raw, &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if last.InputTokens != 3700 || last.CacheReadTokens != 600 || last.OutputTokens != 40 {
		t.Fatalf("the resumed process's cost %+v, want the thread's 5900/900/90 less the first turn's 2200/300/50", last)
	}
	// The interrupted process's share was recorded by the first
	// controller: the run's total is the thread's.
	if c := workflow.ProgressOf(ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle.Get).Cost; c.InputTokens != 5900 || c.OutputTokens != 90 {
		t.Fatalf("run total %+v, want 5900 in, 90 out", c)
	}
}

// task_budget_usd caps a task's runs together: a second run of the task
// starts with what the first left ($0.03 − 2 × $0.013424) and stops
// BLOCKED once it spent that, although it never reached budget_usd.
func TestTaskBudgetSpansItsRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	l := streamLane(t, "claude", config.KindClaude, "real/claude-resume-1", "") // $0.013424 a step
	cfg := streamConfig(l, l)
	cfg.Lanes = cfg.Lanes[:1]
	cfg.Workflow.TaskBudgetUSD = 0.03
	h := startHarness(t, root, cfg)
	named := func(id, runID string) {
		env := relay.Envelope{ID: id, Type: relay.TypeInstruction, Action: relay.ActionForward}
		if err := env.SetBody(relay.Instruction{Text: "spend", TaskID: "DKT-B1", RunID: runID}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := h.client.Send(ctx, env); err != nil {
			t.Fatal(err)
		}
	}
	finishedRun := func(runID string) ledger.Event {
		return h.waitFor("RUN_FINISHED of "+runID, func(e ledger.Event) bool { return op(e) == opRunFinished && e.RunID == runID })
	}
	named("m-a", "RUN-A")
	if fin := finishedRun("RUN-A"); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("first run ended %v", fin.Payload)
	}
	named("m-b", "RUN-B")
	fin := finishedRun("RUN-B")
	if fin.Payload.String("status") != ledger.StatusBlocked || fin.Payload.String("reason_code") != ReasonBudgetExceeded {
		t.Fatalf("second run ended %v", fin.Payload)
	}
	var exceeded ledger.Event
	for _, e := range h.events() {
		if op(e) == opBudgetExceeded {
			exceeded = e
		}
	}
	raw, _ := exceeded.Payload.Get("budget_usd")
	var limit float64
	if exceeded.RunID != "RUN-B" || exceeded.StepID != "S2" || json.Unmarshal(raw, &limit) != nil || !near(limit, 0.03-2*0.013424) {
		t.Fatalf("BUDGET_EXCEEDED %s %s %v", exceeded.RunID, exceeded.StepID, exceeded.Payload)
	}
}

// Codex's sandbox refuses a patch only on stderr, with no call id: the
// step fails AGENT_PERMISSION_DENIED and its summary lists the refusal
// instead of an edit.
func TestCodexStderrDenialIsInTheSummary(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, streamConfig(streamLane(t, "codex", config.KindCodex, "streams-codex-denied-default", "")))
	fin := h.finished(h.forward("change hello.txt").Route.TaskID)
	if fin.Payload.String("reason_code") != ReasonAgentDenied {
		t.Fatalf("run ended %v", fin.Payload)
	}
	for _, e := range h.events() {
		if raw, _ := e.Payload.Get("final"); op(e) == opStepSummary && string(raw) == "true" {
			raw, _ := e.Payload.Get("facts")
			var facts workflow.Facts
			if err := json.Unmarshal(raw, &facts); err != nil || len(facts.Edited) != 0 || len(facts.Denied) != 1 ||
				!strings.Contains(facts.Denied[0], "writing is blocked by read-only sandbox") {
				t.Fatalf("facts %s (%v)", raw, err)
			}
			return
		}
	}
	t.Fatal("no final STEP_SUMMARY")
}

// An edit that failed is no edit: Claude's Edit of a missing file (its
// tool_result an error) and Codex's patch that did not apply (said only on
// stderr) leave nothing in the step's edited files, and the summary says
// they were not applied rather than repeat the agent's "Done: edited".
func TestFailedEditsAreNotEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind   config.Kind
		stream string
	}{{config.KindClaude, "midstream-claude-edit-error"}, {config.KindCodex, "midstream-codex-patch-failed"}} {
		t.Run(tc.stream, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			h := startHarness(t, root, streamConfig(streamLane(t, "agent", tc.kind, tc.stream, "")))
			h.finished(h.forward("edit a file").Route.TaskID)
			for _, e := range h.events() {
				if raw, _ := e.Payload.Get("final"); op(e) == opStepSummary && string(raw) == "true" {
					raw, _ := e.Payload.Get("facts")
					var facts workflow.Facts
					text := e.Payload.String("text")
					if err := json.Unmarshal(raw, &facts); err != nil || len(facts.Edited) != 0 || len(facts.Unapplied) != 1 ||
						!strings.Contains(facts.Unapplied[0], "missing.txt") || !strings.Contains(text, "1 edits not applied") {
						t.Fatalf("facts %s (%v), text %q", raw, err, text)
					}
					return
				}
			}
			t.Fatal("no final STEP_SUMMARY")
		})
	}
}
