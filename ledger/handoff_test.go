package ledger

import (
	"errors"
	"os"
	"testing"
)

// The package in testdata was written by the Python DAOKit; its hash must
// recompute exactly, and a tampered copy must fail.
func TestHandoffHashMatchesPython(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/python_handoff_package.json")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := ParseHandoffPackage(data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := pkg.Validate(); err != nil {
		t.Fatalf("validate Python package: %v", err)
	}
	pkg.Goal = "tampered"
	var ve *ValidationError
	if err := pkg.Validate(); !errors.As(err, &ve) || ve.Code != ProblemHash {
		t.Fatalf("tampered package: got %v, want a %s problem", err, ProblemHash)
	}
}

func TestHandoffRoundTripWithKeepSet(t *testing.T) {
	t.Parallel()
	pkg := HandoffPackage{
		SchemaVersion: SchemaVersion, TaskID: "T1", RunID: "R1", CurrentStep: "S1",
		OpenAcceptanceItems: []AcceptanceItem{{StepID: "S1", Criterion: "tests pass"}},
		NextAction:          NextActionResume, ResumableStepIDs: []string{"S1"},
		StepStatus: StepStatus{Pending: []string{"S1"}}, CreatedAt: "2026-11-22T01:45:10+00:00",
		Goal: "修复登录", Constraints: []string{"no new deps"}, LatestInstruction: "fix it",
		CurrentBlockers: []string{}, RouteSummary: &Route{TaskID: "T1", RunID: "R1", ActiveLane: "worker", ActiveStep: "S1", NextAction: "resume"},
	}
	var err error
	if pkg.PackageHash, err = pkg.ComputeHash(); err != nil {
		t.Fatal(err)
	}
	doc, err := MarshalDocument(pkg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseHandoffPackage(doc)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("validate: %v\n%s", err, doc)
	}
	again, _ := MarshalDocument(back)
	if string(again) != string(doc) {
		t.Fatalf("round trip changed the document:\n%s\nvs\n%s", doc, again)
	}
	if back.Goal != "修复登录" || back.RouteSummary == nil || back.RouteSummary.ActiveLane != "worker" {
		t.Fatalf("keep set lost: %+v", back)
	}
}
