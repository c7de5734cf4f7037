package controller

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// The reviewer script requests changes before iteration $APPROVE_AT
// (never when it is 0) and approves from it on; the coder keeps its
// instruction where the test can read it.
const (
	coderScript    = `cat > "$DAOKIT_ROOT/coder-$DAOKIT_ITERATION.txt"; echo '@daokit {"type":"tool","name":"edit","detail":"pkg/api/handler.go"}'; echo "ok  	example.com/p/pkg/api	0.1s"`
	reviewerScript = `cat >/dev/null; if [ "$APPROVE_AT" != 0 ] && [ "$DAOKIT_ITERATION" -ge "$APPROVE_AT" ]; then echo 'VERDICT: approve — tests cover it'; ` +
		`else echo '- handler.go:42: empty body not handled'; echo "VERDICT: request_changes — one bug in iteration $DAOKIT_ITERATION"; fi`
)

func loopConfig(approveAt string, max int) config.Config {
	cfg := shellConfig("true")
	lane := func(name, script string) config.Lane {
		l := cfg.Lanes[0]
		l.Name, l.Command = name, []string{"sh", "-c", script}
		l.Env = config.Env{"APPROVE_AT=" + approveAt}
		return l
	}
	cfg.Lanes = []config.Lane{lane("coder", coderScript), lane("reviewer", reviewerScript)}
	cfg.Workflow.Kind, cfg.Workflow.Coder, cfg.Workflow.Reviewer = config.FlowLoop, "coder", "reviewer"
	cfg.Workflow.MaxIterations = max
	return cfg
}

func TestLoopRunsUntilTheReviewerApproves(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, loopConfig("2", 5))
	ack := h.forward("add a --json flag to status")
	fin := h.finished(ack.Route.TaskID)
	if got := fin.Payload.String("status"); got != ledger.StatusDone {
		t.Fatalf("run ended %s (%s)", got, fin.Payload.String("reason_code"))
	}
	events := h.events()
	verdicts := count(events, func(e ledger.Event) bool { return op(e) == opReviewVerdict })
	ends := count(events, func(e ledger.Event) bool { return op(e) == opIterationFinished })
	summaries := count(events, func(e ledger.Event) bool { return op(e) == opStepSummary })
	if verdicts != 2 || ends != 2 || summaries == 0 {
		t.Fatalf("verdicts %d, iteration ends %d, summaries %d", verdicts, ends, summaries)
	}
	for _, e := range events {
		if op(e) == opIterationFinished && e.Payload.String("decision") == "done" && e.Payload.String("reason_code") != workflow.JudgeReviewerApproved {
			t.Errorf("final decision %v", e.Payload)
		}
	}
	// The findings of iteration 1 reached the coder of iteration 2.
	second, err := os.ReadFile(filepath.Join(root, "coder-2.txt"))
	if err != nil || !strings.Contains(string(second), "handler.go:42: empty body not handled") ||
		!strings.Contains(string(second), "add a --json flag to status") {
		t.Fatalf("coder of iteration 2 was told %q (%v)", second, err)
	}
	snap := ledger.LoadSnapshot(root)
	lc := snap.Pipeline.Value.RoleLifecycle
	if lc.Get(keyLoopIteration) != "2" || lc.Get(keyLoopMax) != "5" || lc.Get(keyVerdict) != "approve" || lc.Get(keyDecision) != "done" {
		t.Fatalf("lifecycle %v", lc)
	}
	if n := len(snap.Pipeline.Value.Steps); n != 6 {
		t.Fatalf("pipeline has %d steps, want 6 (coder, reviewer, judge twice)", n)
	}
}

func TestLoopBlocksAtMaxIterations(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), loopConfig("0", 2))
	fin := h.finished(h.forward("x").Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusBlocked || fin.Payload.String("reason_code") != workflow.ReasonMaxIterations {
		t.Fatalf("run ended %v", fin.Payload)
	}
	// The heartbeat says the same as the run's end (it once said
	// RESTART_LIMIT_REACHED for every block).
	if got := h.blockedHeartbeat(); got != workflow.ReasonMaxIterations {
		t.Fatalf("heartbeat of a run blocked at max iterations says %q", got)
	}
}

// blockedHeartbeat waits for heartbeat_status.json to say BLOCKED and
// returns its reason code.
func (h *harness) blockedHeartbeat() string {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if hb := ledger.LoadSnapshot(h.root).Heartbeat; hb.OK() && hb.Value.Status == ledger.HeartbeatBlocked {
			return hb.Value.ReasonCode
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	h.t.Fatalf("heartbeat not BLOCKED within 20s: %+v", ledger.LoadSnapshot(h.root).Heartbeat.Value)
	return ""
}

func TestLoopJudgeCommandAndEscalation(t *testing.T) {
	t.Parallel()
	cfg := loopConfig("1", 3)
	cfg.Workflow.Judge = config.JudgeCommand
	cfg.Workflow.JudgeCommand = []string{"sh", "-c", `test -f "$DAOKIT_ROOT/coder-2.txt"`}
	h := startHarness(t, t.TempDir(), cfg)
	fin := h.finished(h.forward("x").Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	codes := []string{}
	for _, e := range h.events() {
		if op(e) == opIterationFinished {
			codes = append(codes, e.Payload.String("reason_code"))
		}
	}
	if strings.Join(codes, ",") != workflow.JudgeCommandFailed+","+workflow.JudgeCommandPassed {
		t.Fatalf("judge decisions %v", codes)
	}

	esc := loopConfig("1", 3)
	esc.Lanes[1].Command = []string{"sh", "-c", `echo 'VERDICT: escalate — needs a person'`}
	h = startHarness(t, t.TempDir(), esc)
	fin = h.finished(h.forward("x").Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusBlocked || fin.Payload.String("reason_code") != workflow.ReasonEscalated {
		t.Fatalf("escalated run ended %v", fin.Payload)
	}
	if got := h.blockedHeartbeat(); got != workflow.ReasonEscalated {
		t.Fatalf("heartbeat of an escalated run says %q", got)
	}
}

// A controller stopped during iteration 2's review resumes iteration 2
// with the review: no finished step runs again.
func TestLoopResumesTheIterationItWasIn(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := loopConfig("2", 5)
	slow := cfg
	slow.Lanes = append([]config.Lane(nil), cfg.Lanes...)
	slow.Lanes[1].Command = []string{"sh", "-c", `if [ "$DAOKIT_ITERATION" = 2 ]; then sleep 30; fi; ` + reviewerScript}
	h := startHarness(t, root, slow)
	ack := h.forward("x")
	h.waitFor("I2-reviewer start", func(e ledger.Event) bool {
		return e.EventType == ledger.EventStepStarted && e.StepID == "I2-reviewer"
	})
	h.stop()
	h = startHarness(t, root, cfg)
	if fin := h.finished(ack.Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("resumed run ended %v", fin.Payload)
	}
	starts := map[string]int{}
	for _, e := range h.events() {
		if e.EventType == ledger.EventStepStarted {
			starts[e.StepID]++
		}
	}
	want := map[string]int{"I1-coder": 1, "I1-reviewer": 1, "I2-coder": 1, "I2-reviewer": 2}
	for id, n := range want {
		if starts[id] != n {
			t.Errorf("%s started %d times, want %d (all: %v)", id, starts[id], n, starts)
		}
	}
	resumed := count(h.events(), func(e ledger.Event) bool {
		raw, _ := e.Payload.Get("iteration")
		return op(e) == opIterationStarted && string(raw) == "2"
	})
	if resumed != 2 {
		t.Errorf("iteration 2 started %d times, want 2 (once, then resumed)", resumed)
	}
}

// A person's retry of a loop that used its max_iterations grants it as
// many again; the finished iterations stay finished.
func TestRetryExtendsABlockedLoop(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, loopConfig("3", 2))
	ack := h.forward("x")
	fin := h.finished(ack.Route.TaskID)
	if fin.Payload.String("reason_code") != workflow.ReasonMaxIterations {
		t.Fatalf("first end %v", fin.Payload)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.client.Control(ctx, relay.Control{Kind: relay.ControlRetry, TaskID: ack.Route.TaskID, RunID: ack.Route.RunID}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("second RUN_FINISHED", func(e ledger.Event) bool {
		return op(e) == opRunFinished && e.TaskID == ack.Route.TaskID && e.Payload.String("status") == ledger.StatusDone
	})
	starts := count(h.events(), func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted })
	if starts != 6 {
		t.Fatalf("%d steps started, want 6 (three iterations of coder and reviewer, none twice)", starts)
	}
}

// A judge that is a lane of its own runs as the iteration's judge step;
// its verdict decides.
func TestLoopWithAnAgentJudge(t *testing.T) {
	t.Parallel()
	cfg := loopConfig("0", 4) // the reviewer never approves: the judge decides
	judge := cfg.Lanes[0]
	judge.Name, judge.Command = "judge", []string{"sh", "-c",
		`cat >/dev/null; if [ "$DAOKIT_ITERATION" -ge 2 ]; then echo 'VERDICT: approve — good enough'; else echo 'VERDICT: request_changes — not yet'; fi`}
	cfg.Lanes = append(cfg.Lanes, judge)
	cfg.Workflow.Judge, cfg.Workflow.JudgeLane = config.JudgeAgent, "judge"
	h := startHarness(t, t.TempDir(), cfg)
	fin := h.finished(h.forward("x").Route.TaskID)
	if fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	var codes []string
	judged := 0
	for _, e := range h.events() {
		if op(e) == opIterationFinished {
			codes = append(codes, e.Payload.String("reason_code"))
		}
		if e.EventType == ledger.EventStepStarted && strings.HasSuffix(e.StepID, "-judge") {
			judged++
		}
	}
	if strings.Join(codes, ",") != workflow.JudgeAgentContinue+","+workflow.JudgeAgentDone || judged != 2 {
		t.Fatalf("decisions %v, judge steps started %d", codes, judged)
	}
}

// Usage reported by a lane's agent reaches the pipeline: tokens always,
// a cost from the lane's price when the agent reports none.
func TestLoopMetricsFromReportedUsage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := loopConfig("1", 2)
	cfg.Lanes[1].Command = []string{"sh", "-c", `cat >/dev/null; echo 'VERDICT: approve — fine'; ` +
		`echo '@daokit {"type":"result","summary":"ok","usage":{"input_tokens":1000000,"output_tokens":100000}}'`}
	cfg.Workflow.Prices = map[string]config.Price{"reviewer": {InputPerMTok: 1.25, OutputPerMTok: 10}}
	h := startHarness(t, root, cfg)
	if fin := h.finished(h.forward("x").Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	lc := ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle
	if lc.Get(keyInputTokens) != "1000000" || lc.Get(keyOutputTokens) != "100000" || lc.Get(keyCostUSD) != "2.25" {
		t.Fatalf("metrics in the pipeline: %s %s %s", lc.Get(keyInputTokens), lc.Get(keyOutputTokens), lc.Get(keyCostUSD))
	}
	if n := count(h.events(), func(e ledger.Event) bool { return op(e) == opStepMetrics }); n != 1 {
		t.Fatalf("%d STEP_METRICS events, want 1", n)
	}
}

// TestStepEndDoesNotWaitForItsSync: a step's STEP_COMPLETED is written,
// not awaited (see recordWritten): while its fdatasync is held the run
// goes on and the next worker starts; that worker's STEP_STARTED is
// awaited and lands after it, and the run ends DONE with each step
// completed once.
func TestStepEndDoesNotWaitForItsSync(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := loopConfig("1", 1)
	cfg.Lanes[1].Command = []string{"sh", "-c", `touch "$DAOKIT_ROOT/reviewer-started"; ` + reviewerScript}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	syncData := func(f *os.File) error {
		if tail := fileTail(f, 8<<10); strings.Contains(tail, `"step_id":"I1-coder","event_type":"STEP_COMPLETED"`) {
			once.Do(func() {
				close(held)
				<-release
			})
		}
		return f.Sync()
	}
	h := startHarnessWith(t, Options{Root: root, Config: cfg, SyncData: syncData})
	// Registered after the harness: it runs before the harness stops, so
	// that a failed test does not leave the controller in a held sync.
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ack := h.forward("add a --json flag")
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("the coder's STEP_COMPLETED was never synced")
	}
	marker := filepath.Join(root, "reviewer-started")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polling a file; the condition decides
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reviewer did not start while the coder's STEP_COMPLETED was syncing: the step's end waits for its sync")
		}
	}
	close(release)
	if fin := h.finished(ack.Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", fin.Payload)
	}
	var order []string
	for _, e := range h.events() {
		if e.EventType == ledger.EventStepCompleted || e.EventType == ledger.EventStepStarted {
			order = append(order, e.StepID+" "+e.EventType)
		}
	}
	want := []string{"I1-coder STEP_STARTED", "I1-coder STEP_COMPLETED", "I1-reviewer STEP_STARTED", "I1-reviewer STEP_COMPLETED"}
	if !slices.Equal(order, want) {
		t.Errorf("steps in the log %v, want %v", order, want)
	}
}

// fileTail reads the last n bytes of f (all of it when shorter).
func fileTail(f *os.File, n int64) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-n, 0)
	buf := make([]byte, st.Size()-off)
	k, _ := f.ReadAt(buf, off)
	return string(buf[:k])
}
