package worker_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/workflow"
)

// The simulated reviewer requests changes once, with concrete findings,
// then approves; its verdict line is what the workflow package reads.
func TestSimReviewer(t *testing.T) {
	run := func(o worker.SimOptions) workflow.Verdict {
		t.Helper()
		o.Role, o.Instruction = worker.SimRoleReviewer, "review the --json flag"
		var out, errw bytes.Buffer
		if code := worker.RunSim(context.Background(), o, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		v, ok := workflow.ParseVerdict(out.String())
		if !ok {
			t.Fatalf("no verdict in:\n%s", out.String())
		}
		return v
	}
	first := run(worker.SimOptions{Iteration: 1})
	if first.Decision != workflow.RequestChanges || len(first.Findings) != 2 || !strings.Contains(first.Findings[0], ".go:") {
		t.Fatalf("iteration 1: %+v", first)
	}
	if v := run(worker.SimOptions{Iteration: 2}); v.Decision != workflow.Approve || v.Reason == "" {
		t.Fatalf("iteration 2: %+v", v)
	}
	if v := run(worker.SimOptions{Iteration: 9, NeverApprove: true}); v.Decision != workflow.RequestChanges {
		t.Fatalf("never approve: %+v", v)
	}
	if v := run(worker.SimOptions{Iteration: 1, Escalate: true}); !v.Escalate {
		t.Fatalf("escalate: %+v", v)
	}
	if v := run(worker.SimOptions{Iteration: 3, ApproveAt: 4}); v.Decision != workflow.RequestChanges {
		t.Fatalf("approve-at 4, iteration 3: %+v", v)
	}
}
