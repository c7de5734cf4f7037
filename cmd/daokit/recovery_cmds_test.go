package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// interruptedRun leaves a ledger as an interrupted run does: the pipeline
// names a task and a step, and the step's lease is still ACTIVE.
func interruptedRun(t *testing.T, ttl time.Duration) string {
	t.Helper()
	root := initRoot(t)
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now()
	p := ledger.NewPipelineState(now)
	p.TaskID, p.RunID, p.Goal, p.CurrentStep = "DKT-900", "RUN-900", "resume me", "S1"
	p.Steps = []ledger.Step{{ID: "S1", Title: "Implement", Category: "implementation", Goal: "g",
		AcceptanceCriteria: []string{"tests pass"}, ExpectedOutputs: []string{"report.md"}}}
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	at := ledger.FormatTime(now)
	reg := ledger.NewLeases(now)
	reg.Leases = []ledger.Lease{{Lane: "controller", StepID: "S1", TaskID: "DKT-900", RunID: "RUN-900", ThreadID: "cli-1", PID: 999999,
		LeaseToken: "lease_old", Expiry: ledger.FormatTime(now.Add(ttl)), Status: ledger.LeaseActive,
		LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at}}
	if _, err := store.WriteLeases(reg); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestOperatorRecoveryFlow(t *testing.T) {
	t.Parallel()
	root := interruptedRun(t, time.Hour)
	r := runCLI(t, nil, "takeover", "--root", root, "--successor-thread-id", "thread-succ", "--successor-pid", "4242", "--lease-ttl", "600")
	var took struct {
		TaskID  string   `json:"task_id"`
		Adopted []string `json:"adopted_step_ids"`
		Failed  []string `json:"failed_step_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &took); err != nil || r.code != 0 {
		t.Fatalf("takeover: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if took.TaskID != "DKT-900" || len(took.Adopted) != 1 || took.Adopted[0] != "S1" || len(took.Failed) != 0 {
		t.Fatalf("takeover result %+v", took)
	}
	snap := ledger.LoadSnapshot(root)
	leases := snap.Leases.Value.Leases
	if len(leases) != 2 || leases[0].Status != ledger.LeaseTakenOver || leases[1].Status != ledger.LeaseActive || leases[1].PID != 4242 {
		t.Fatalf("leases after takeover: %+v", leases)
	}
	if snap.Pipeline.Value.Succession.LastTakeoverAt == "" || snap.Pipeline.Value.RunID != "RUN-900" {
		t.Errorf("pipeline succession %+v", snap.Pipeline.Value.Succession)
	}

	created := runCLI(t, nil, "handoff", "--root", root, "--create")
	pkg, err := ledger.ParseHandoffPackage([]byte(created.stdout))
	if err != nil || created.code != 0 {
		t.Fatalf("handoff --create: code %d %v\n%s%s", created.code, err, created.stdout, created.stderr)
	}
	if err := pkg.Validate(); err != nil || pkg.NextAction != "resume" || pkg.CurrentStep != "S1" {
		t.Fatalf("package %+v: %v", pkg, err)
	}
	applied := runCLI(t, nil, "handoff", "--root", root, "--apply")
	if applied.code != 0 || !strings.Contains(applied.stdout, `"resume_step_id": "S1"`) {
		t.Fatalf("handoff --apply: code %d\n%s%s", applied.code, applied.stdout, applied.stderr)
	}
	replay := runCLI(t, nil, "replay", "--root", root)
	if !strings.Contains(replay.stdout, "LEASE_TAKEOVER step=- severity=INFO") || !strings.Contains(replay.stdout, "SYSTEM step=S1 severity=INFO") {
		t.Errorf("replay after takeover:\n%s", replay.stdout)
	}
	if r := runCLI(t, nil, "check", "--root", root); r.code == exitFailure {
		t.Errorf("ledger after recovery does not check: %s", r.stderr)
	}
}

func TestTakeoverOfAnExpiredLeaseFailsTheStep(t *testing.T) {
	t.Parallel()
	root := interruptedRun(t, -time.Second)
	r := runCLI(t, nil, "takeover", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, `"failed_step_ids": [
    "S1"
  ]`) {
		t.Fatalf("code %d stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	p := ledger.LoadSnapshot(root).Pipeline.Value
	if got := p.RoleLifecycle.Get("step:S1"); got != "failed_non_adopted_lease" {
		t.Errorf("step:S1 = %q", got)
	}
}

// TestOperatorCommandsRefuseWhenTheHolderDoesNotAnswer: a live process
// holds the root's lock but answers on no socket (here the test itself;
// in life a hung controller). The command, which a live controller
// would carry out, changes nothing and says why.
func TestOperatorCommandsRefuseWhenTheHolderDoesNotAnswer(t *testing.T) {
	t.Parallel()
	root := interruptedRun(t, time.Hour)
	if r := runCLI(t, nil, "handoff", "--root", root, "--create"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	before := readFile(t, ledger.Layout{Root: root}.Pipeline())
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, args := range [][]string{{"takeover"}, {"handoff", "--create"}, {"handoff", "--apply"}} {
		r := runCLI(t, nil, append(args, "--root", root)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "a live controller (pid") || !strings.Contains(r.stderr, "did not answer") {
			t.Errorf("%v: code %d stderr %q", args, r.code, r.stderr)
		}
	}
	if after := readFile(t, ledger.Layout{Root: root}.Pipeline()); after != before {
		t.Errorf("the pipeline changed:\n%s\n%s", before, after)
	}
}

func TestHandoffApplyRejectsATamperedPackage(t *testing.T) {
	t.Parallel()
	root := interruptedRun(t, time.Hour)
	if r := runCLI(t, nil, "handoff", "--root", root); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	path := ledger.Layout{Root: root}.Handoff()
	writeFile(t, root, ledger.HandoffFile, strings.Replace(readFile(t, path), `"resume"`, `"complete"`, 1))
	r := runCLI(t, nil, "handoff", "--root", root, "--apply")
	if r.code != exitFailure || !strings.Contains(r.stderr, "E_HANDOFF_FAILED: ") || !strings.Contains(r.stderr, "package_hash") {
		t.Fatalf("tampered apply: code %d stderr %q", r.code, r.stderr)
	}
	if st := runCLI(t, nil, "status", "--root", root); st.code != 0 || !strings.Contains(st.stderr, "warning: the handoff package is not usable") {
		t.Fatalf("status with a tampered package: code %d stderr %q", st.code, st.stderr)
	}
}
