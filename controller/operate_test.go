package controller

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// pythonLeftRoot is a root another tool's finished run left behind
// without releasing its lease (the Python tool's failed run does): the
// pipeline is DONE and names no run of this controller, and the lease
// of its step is still ACTIVE, held by a process that is gone (the
// controller takes it over as it starts).
func pythonLeftRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	store, err := ledger.Open(root, ledger.Options{CreateStateDir: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now()
	p := ledger.NewPipelineState(now)
	p.TaskID, p.RunID, p.Goal, p.Status, p.CurrentStep = "DKT-900", "RUN-900", "done elsewhere", ledger.StatusDone, "S1"
	p.Steps = []ledger.Step{{ID: "S1", Title: "Implement", Category: "implementation", Goal: "g",
		AcceptanceCriteria: []string{"tests pass"}, ExpectedOutputs: []string{"report.md"}}}
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	at := ledger.FormatTime(now)
	reg := ledger.NewLeases(now)
	reg.Leases = []ledger.Lease{{Lane: "controller", StepID: "S1", TaskID: "DKT-900", RunID: "RUN-900", ThreadID: "cli-1", PID: 999999,
		LeaseToken: "lease_py", Expiry: ledger.FormatTime(now.Add(time.Hour)), Status: ledger.LeaseActive,
		LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at}}
	if _, err := store.WriteLeases(reg); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestOperationOnARunTheControllerDoesNotHave: a takeover forwarded for
// the run the pipeline shows, which is not one of the controller's, is
// carried out on the ledger's own pipeline and the controller's register
// and recorded once (a resend is answered, not done again); a handoff is
// then created from that pipeline and applied to it, and a package of
// another task is refused with the local command's code.
func TestOperationOnARunTheControllerDoesNotHave(t *testing.T) {
	t.Parallel()
	root := pythonLeftRoot(t)
	h := startHarness(t, root, shellConfig("cat"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cli, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	send := func(id string, op relay.Operation) relay.Outcome {
		t.Helper()
		env := relay.Envelope{ID: id, Type: relay.TypeOperate, Action: relay.ActionForward}
		if err := env.SetBody(op); err != nil {
			t.Fatal(err)
		}
		reply, err := cli.Send(ctx, env)
		var out relay.Outcome
		if err != nil || reply.DecodeBody(&out) != nil {
			t.Fatalf("%s: %v", op.Kind, err)
		}
		return out
	}
	manual := func() int {
		n := 0
		for _, e := range h.events() {
			if e.EventType == ledger.EventLeaseTakeover && e.TaskID == "DKT-900" && e.Payload.String("reason_code") == "MANUAL_TAKEOVER" {
				n++
			}
		}
		return n
	}
	take := relay.Operation{Kind: relay.OperateTakeover, TaskID: "DKT-900", RunID: "RUN-900", SuccessorThreadID: "thread-succ", SuccessorPID: 4242, LeaseTTL: 600}
	out := send("op-takeover", take)
	var took struct {
		At      string   `json:"takeover_at"`
		Adopted []string `json:"adopted_step_ids"`
	}
	if out.Failure != nil || json.Unmarshal([]byte(out.Output), &took) != nil || took.At == "" || took.Adopted == nil {
		t.Fatalf("takeover: %+v", out)
	}
	again := send("op-takeover", take)
	if !again.Duplicate || again.Output != out.Output || again.EventID != out.EventID {
		t.Fatalf("resend: %+v, first %+v", again, out)
	}
	if n := manual(); n != 1 {
		t.Fatalf("%d MANUAL_TAKEOVER records, want 1", n)
	}
	if p := ledger.LoadSnapshot(root).Pipeline.Value; p.Succession.LastTakeoverAt != took.At || p.TaskID != "DKT-900" {
		t.Fatalf("pipeline after the takeover: %s %+v, want the takeover at %s", p.TaskID, p.Succession, took.At)
	}

	created := send("op-create", relay.Operation{Kind: relay.OperateHandoffCreate, PackageFile: ledger.HandoffFile})
	pkg, err := ledger.ParseHandoffPackage([]byte(created.Output))
	if created.Failure != nil || err != nil || pkg.TaskID != "DKT-900" {
		t.Fatalf("create: %+v %v", created, err)
	}
	applied := send("op-apply", relay.Operation{Kind: relay.OperateHandoffApply, Package: []byte(created.Output), PackagePath: "state/handoff_package.json"})
	if applied.Failure != nil || !strings.Contains(applied.Output, `"package_path": "state/handoff_package.json"`) {
		t.Fatalf("apply: %+v", applied)
	}
	if got := ledger.LoadSnapshot(root).Pipeline.Value.RoleLifecycle.Get("handoff_next_action"); got == "" {
		t.Error("the handoff was not applied to the ledger's pipeline")
	}
	other := send("op-apply-other", relay.Operation{Kind: relay.OperateHandoffApply,
		Package: []byte(strings.Replace(created.Output, `"DKT-900"`, `"DKT-901"`, 1))})
	if other.Failure == nil || other.Failure.Code != "E_HANDOFF_FAILED" || other.Output != "" {
		t.Fatalf("a package for another task: %+v", other)
	}
}
