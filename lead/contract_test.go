package lead

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// A person's DependsOn that names no issue is not acted on (the issue
// keeps running, nothing blocks it) and the Lead's answer says what it
// did not take and why.
func TestCommentFieldBreakingTheContractIsSaidNotTaken(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("long job", "Sim: sleep 1h", "to:backend")
	l := p.lead("backend", 2, nil)
	runLead(t, l)
	p.waitFor("running", 30*time.Second, func() bool { return len(l.Snapshot(context.Background()).Running) == 1 })
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "wait for the login one\nDependsOn: the login issue\nTrigger: ann-1"})
	p.waitFor("the answer", 30*time.Second, func() bool { return hasText(p.comments(id), "read comment") })
	var ack string
	for _, c := range p.comments(id) {
		if c.Author == l.actor && strings.Contains(c.Body, "read comment") {
			ack = c.Body
		}
	}
	if !strings.Contains(ack, notTaken) || !strings.Contains(ack, `DependsOn "the login issue" (expected issue numbers`) {
		t.Fatalf("answer:\n%s", ack)
	}
	if m := outbox.ParseMailbox(ack); m.Fields[outbox.FieldTrigger] != "ann-1" || m.Invalid != nil {
		t.Fatalf("the answer's own fields: %+v", m)
	}
	if is, s := p.issue(id), l.Snapshot(context.Background()); is.HasLabel(roster.LabelBlocked) || len(s.Blocked) != 0 || len(s.Running) != 1 {
		t.Fatalf("acted on garbage: %+v %+v", is, s)
	}
}

// A Worker's line whose value breaks the contract is not its evidence:
// "State: Done!" does not make a failed Worker succeed, "Tests" with a
// terminal escape is not posted as its Tests, and the Lead's comment and
// the attempt's record say what was not taken.
func TestWorkerEvidenceBreakingTheContractIsNotTaken(t *testing.T) {
	p := newProject(t, `[roles.be]
worker = ["sh", "-c", "printf 'Tests: \\033[32mok\\033[0m\\nChanges: commit abc\\nState: Done!\\n'; exit 3"]
`, 50*time.Millisecond)
	l := p.lead("be", 1, nil)
	runLead(t, l)
	id := p.file("build it", "", "to:be")
	p.waitFor("the issue failed", 20*time.Second, func() bool { return p.issue(id).HasLabel(roster.LabelFailed) })
	f := fieldsOf(p.comments(id), l.actor)
	last := f[len(f)-1]
	if last[outbox.FieldState] != roster.LabelFailed || last[outbox.FieldTests] != "n/a" || last[outbox.FieldChanges] != "commit abc" {
		t.Fatalf("posted %v", last)
	}
	if !hasText(p.comments(id), "State \"Done!\" (expected a state") || !hasText(p.comments(id), `Tests "\x1b[32mok\x1b[0m"`) {
		t.Fatalf("comments %v", p.comments(id))
	}
	rec, err := readAttemptResult(roster.AttemptDir(roster.StatusDir(p.wf), "be", id, 1))
	if err != nil || rec.Invalid[outbox.FieldState].Value != "Done!" || rec.Evidence[outbox.FieldState] != "" {
		t.Fatalf("result.json %+v, %v", rec, err)
	}
}
