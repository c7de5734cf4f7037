package relayctx

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// TestTakeoverRestoresTheKeepSetFromTheHandoff: the noise recorded before
// a takeover is dropped and the keep set comes back from the package.
func TestTakeoverRestoresTheKeepSetFromTheHandoff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pkg := ledger.HandoffPackage{
		SchemaVersion: ledger.SchemaVersion, TaskID: "DK-1", RunID: "R-1", CurrentStep: "S1",
		NextAction: ledger.NextActionResume, ResumableStepIDs: []string{"S1"},
		StepStatus: ledger.StepStatus{Pending: []string{"S1"}}, CreatedAt: ledger.FormatTime(time.Now()),
		EvidencePaths: []string{"report.md"}, Goal: "修复登录", Constraints: []string{"no new deps"},
		LatestInstruction: "fix the login", CurrentBlockers: []string{},
		RouteSummary: &ledger.Route{TaskID: "DK-1", RunID: "R-1", ActiveLane: "worker", ActiveStep: "S1", NextAction: "resume"},
	}
	pkg.PackageHash, _ = pkg.ComputeHash()
	doc, _ := ledger.MarshalDocument(pkg)
	path := filepath.Join(dir, ledger.HandoffFile)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(nil, Policy{Manual: true, HandoffPath: path}, nil)
	drain(m, m.Init(context.Background()))
	drain(m, m.Instruction(context.Background(), "an older instruction"))
	stale := ledger.NewEvent(time.Now(), "DK-0", "R-0", "S1", ledger.EventStepFailed, ledger.SeverityError, ledger.ObjectOf("reason_code", "WORKER_HUNG"))
	drain(m, m.Ledger(context.Background(), live.LedgerUpdate{Events: []ledger.Event{stale}}))
	if len(m.Context().Entries(compact.FailureNoise)) == 0 {
		t.Fatal("setup: no failure noise recorded")
	}
	takeover := ledger.NewEvent(time.Now(), "DK-1", "R-1", "", ledger.EventLeaseTakeover, ledger.SeverityWarn, ledger.ObjectOf("reason_code", "HEARTBEAT_STALE"))
	applied := ledger.NewEvent(time.Now(), "DK-1", "R-1", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("operation", "HANDOFF_APPLIED"))
	drain(m, m.Ledger(context.Background(), live.LedgerUpdate{Events: []ledger.Event{takeover, applied}}))
	ctx := m.Context()
	f := ctx.Facts()
	if f.Goal != "修复登录" || f.LatestInstruction != "fix the login" || f.Route.ActiveStep != "S1" || f.Route.NextAction != "resume" || len(f.Constraints) != 1 {
		t.Fatalf("keep set after restore: %+v", f)
	}
	if n := len(ctx.Entries(compact.FailureNoise)); n != 0 {
		t.Errorf("%d stale failure entries kept across the takeover", n)
	}
	if n := len(ctx.Entries(compact.EvidencePaths)); n != 1 || m.Restores() != 1 {
		t.Errorf("evidence %d restores %d, want 1 and 1", n, m.Restores())
	}
}

func TestABrokenHandoffIsReportedNotApplied(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ledger.HandoffFile)
	os.WriteFile(path, []byte(`{"schema_version":"1.0.0"}`), 0o644)
	m := New(nil, Policy{Manual: true, HandoffPath: path}, nil)
	drain(m, m.Init(context.Background()))
	drain(m, m.Instruction(context.Background(), "keep me"))
	applied := ledger.NewEvent(time.Now(), "DK-1", "R-1", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("operation", "HANDOFF_APPLIED"))
	drain(m, m.Ledger(context.Background(), live.LedgerUpdate{Events: []ledger.Event{applied}}))
	if m.Err() == nil || m.Restores() != 0 || m.Context().Facts().LatestInstruction != "keep me" {
		t.Fatalf("err %v restores %d facts %+v", m.Err(), m.Restores(), m.Context().Facts())
	}
}
