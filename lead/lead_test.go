package lead

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

const twoRoles = `
[roles.backend]
role_repo = "repos/backend"
[roles.qa]
role_repo = "repos/qa"
depends_on = ["backend"]
[roles.integrator]
accepts = true
`

// A trigger is handled once: the same Trigger in two comments, and the
// same events replayed by a second Lead instance (a restart whose cursor
// was behind), give one acknowledgement.
func TestTriggerHandledOnce(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("close the old API", "", "to:backend")
	p.do("admin", outbox.Op{Kind: outbox.OpClose, Issue: id})
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "please look\n\nTrigger: T-1"})
	p.do("bob", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "me too\n\nTrigger: T-1"})
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "no trigger line"})
	l := p.lead("backend", 2, nil)
	if n, err := l.Step(context.Background()); err != nil || n != 2 {
		t.Fatalf("effects %d, %v", n, err)
	}
	// Another instance reading from an older cursor (as after a crash
	// before its cursor was read) changes nothing.
	again := p.lead("backend", 2, nil)
	again.cursor = 0
	if n, err := again.Step(context.Background()); err != nil || n != 0 {
		t.Fatalf("replay effects %d, %v", n, err)
	}
	acks := fieldsOf(p.comments(id), roster.Actor("backend"))
	if len(acks) != 2 || acks[0][outbox.FieldTrigger] != "T-1" || !strings.HasPrefix(acks[1][outbox.FieldTrigger], "comment:") {
		t.Fatalf("acks %v", acks)
	}
	// The Lead read everything; the outbox keeps its cursor at the last
	// effect until the Lead writes it past the events that needed
	// nothing (idle, or at its end).
	head, _ := p.ob.Head(context.Background())
	if l.cursor != head {
		t.Fatalf("cursor %d, head %d", l.cursor, head)
	}
	if err := l.flushCursor(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if c, _ := p.ob.Cursor(context.Background(), roster.Actor("backend")); c != head {
		t.Fatalf("kept cursor %d, head %d", c, head)
	}
}

// Two Leads on one issue never answer each other: without the rule, each
// acknowledgement would be a new comment for the other Lead to
// acknowledge, forever. The passes are bounded so that the test ends
// either way.
func TestLeadsIgnoreLeadComments(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("shared", "", "to:backend", "to:qa")
	p.do("admin", outbox.Op{Kind: outbox.OpClose, Issue: id})
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "@backend @qa sync please\nTrigger: S-1"})
	a, b := p.lead("backend", 1, nil), p.lead("qa", 1, nil)
	quiet := false
	for round := 0; round < 20 && !quiet; round++ {
		na, err := a.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		nb, err := b.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		quiet = na == 0 && nb == 0 && round > 0
	}
	if !quiet {
		t.Fatal("the Leads kept answering each other")
	}
	if got := len(p.comments(id)); got != 3 {
		t.Fatalf("%d comments, want the person's and one ack from each Lead", got)
	}
}

// With a soft cap of 4 and a hard cap of 2, never more than 2 Workers run;
// queued work starts oldest first.
func TestConcurrencyMinOfSoftAndHard(t *testing.T) {
	p := newProject(t, "[roles.backend]\nrole_repo = \"repo\"\n[groups.backend]\nmax_concurrent = 4\n", time.Hour)
	l := p.lead("backend", 2, nil)
	if l.limit != 2 {
		t.Fatalf("limit %d", l.limit)
	}
	var ids []int64
	for i := range 6 {
		ids = append(ids, p.file(fmt.Sprintf("task %d", i), "Sim: sleep 150ms", "to:backend"))
	}
	var mu sync.Mutex
	maxRunning := 0
	runLead(t, l)
	p.waitFor("all six closed", 60*time.Second, func() bool {
		s := l.Snapshot(context.Background())
		mu.Lock()
		maxRunning = max(maxRunning, len(s.Running))
		mu.Unlock()
		list, _ := p.ob.List(context.Background(), outbox.Query{Label: "to:backend", State: "closed"})
		return len(list) == 6
	})
	if maxRunning > 2 || maxRunning == 0 {
		t.Fatalf("at most %d Workers ran at once, want 1..2", maxRunning)
	}
	// Order of starts: the state:running labels, by event id.
	evs, _ := p.ob.Events(context.Background(), 0, 10000)
	var started []int64
	for _, e := range evs {
		if e.Kind == outbox.EventLabeled && e.Value == roster.LabelRunning {
			started = append(started, e.Issue)
		}
	}
	if fmt.Sprint(started) != fmt.Sprint(ids) {
		t.Fatalf("started %v, want oldest first %v", started, ids)
	}
	for _, id := range ids {
		ev := fieldsOf(p.comments(id), roster.Actor("backend"))
		last := ev[len(ev)-1]
		if last[outbox.FieldIssueRef] != fmt.Sprintf("#%d", id) || !strings.HasPrefix(last[outbox.FieldChanges], "commit sim-") || last[outbox.FieldTests] == "" {
			t.Fatalf("evidence of #%d: %v", id, last)
		}
	}
}

// A qa issue waits for the open backend issue (depends_on in
// workflow.toml) and for its explicit DependsOn, and wakes when they
// close. The wake interval is an hour, so only the outbox's change
// notification can wake it: no polling.
func TestBlockedThenUnblockedByEvent(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	api := p.file("login API", "", "to:backend")
	p.do("lead:backend", outbox.Op{Kind: outbox.OpAssign, Issue: api, Assignee: "somebody"})
	other := p.file("design note", "")
	check := p.file("test login", "DependsOn: #"+fmt.Sprint(other), "to:qa")
	qa := p.lead("qa", 2, nil)
	runLead(t, qa)
	p.waitFor("blocked", 30*time.Second, func() bool { return p.issue(check).HasLabel(roster.LabelBlocked) })
	bl := fieldsOf(p.comments(check), roster.Actor("qa"))
	if got := bl[len(bl)-1][outbox.FieldBlockedBy]; got != fmt.Sprintf("#%d, #%d", api, other) {
		t.Fatalf("BlockedBy %q", got)
	}
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: other, Body: "still thinking"})
	p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: api})
	// Closing one of two blockers must not unblock it: once the Lead has
	// read past the close (a close wakes every Lead; the comment before
	// it names no role, so it wakes none), the issue is still blocked.
	head, _ := p.ob.Head(context.Background())
	p.waitFor("read", 30*time.Second, func() bool { return qa.Snapshot(context.Background()).Cursor >= head })
	if !p.issue(check).HasLabel(roster.LabelBlocked) || hasText(p.comments(check), "Unblocked") {
		t.Fatal("unblocked while a blocker is open")
	}
	p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: other})
	p.waitFor("closed with evidence", 30*time.Second, func() bool { return p.issue(check).Closed })
	if !hasText(p.comments(check), "Unblocked") || !p.issue(check).HasLabel(roster.LabelDone) {
		t.Fatalf("%+v", p.comments(check))
	}
}

// A person's DependsOn comment on a running issue stops its Worker and
// blocks it.
func TestDependsOnCommentStopsTheWorker(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	dep := p.file("schema", "")
	id := p.file("long job", "Sim: sleep 1h", "to:backend")
	l := p.lead("backend", 2, nil)
	runLead(t, l)
	p.waitFor("running", 30*time.Second, func() bool { return len(l.Snapshot(context.Background()).Running) == 1 })
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: fmt.Sprintf("wait for the schema\nDependsOn: #%d", dep)})
	p.waitFor("blocked and stopped", 30*time.Second, func() bool {
		s := l.Snapshot(context.Background())
		return p.issue(id).HasLabel(roster.LabelBlocked) && len(s.Running) == 0
	})
	p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: dep})
	p.waitFor("running again", 30*time.Second, func() bool { return len(l.Snapshot(context.Background()).Running) == 1 })
}

// Workers cannot write the outbox (read-only by environment) nor the
// memory folder or the database file (read-only mounts of the guard).
func TestWorkersAreRefused(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	guard := append([]string{os.Args[0], "guard"}, GuardOf(p.wf, "").Flags()...)
	l := p.lead("backend", 2, func(o *Options) { o.Guard = guard })
	mem := filepath.Join(p.wf.MemoryPath(), "worker-note.md")
	a := p.file("write memory", "Sim: write "+mem, "to:backend")
	b := p.file("write outbox", "Sim: outbox "+p.wf.DBPath(), "to:backend")
	c := p.file("write db file", "Sim: write "+p.wf.DBPath(), "to:backend")
	runLead(t, l)
	for _, id := range []int64{a, b, c} {
		p.waitFor("evidence", 30*time.Second, func() bool { return p.issue(id).Closed })
		ev := fieldsOf(p.comments(id), roster.Actor("backend"))
		tests := ev[len(ev)-1][outbox.FieldTests]
		if !strings.Contains(tests, "refused") {
			t.Errorf("#%d: %q", id, tests)
		}
		t.Logf("#%d: %s", id, tests)
	}
	if _, err := os.Stat(mem); err == nil {
		t.Fatal("a Worker wrote the memory folder")
	}
	if n := len(p.comments(1)); n > 3 {
		t.Fatalf("a Worker commented: %d comments", n)
	}
}

// decision:accepted (by a person or an accepting role's Lead) becomes a
// memory file written by the memory writer; a draft does not, and a
// stamp by a Lead of a role that may not accept does not.
func TestAcceptedGateWritesMemory(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	acc := p.file("Use JWT for sessions", "Tokens expire after 1h.")
	draft := p.file("Maybe GraphQL?", "a draft")
	forged := p.file("Forged", "x")
	p.do("ann", outbox.Op{Kind: outbox.OpLabel, Issue: acc, Labels: []string{roster.LabelAccepted}})
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: draft, Body: "I think we should"})
	p.do("lead:backend", outbox.Op{Kind: outbox.OpLabel, Issue: forged, Labels: []string{roster.LabelAccepted}})
	if memoryWriter(p.wf) != "integrator" {
		t.Fatal(memoryWriter(p.wf))
	}
	for _, role := range []string{"backend", "integrator"} {
		if _, err := p.lead(role, 1, nil).Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(p.wf.MemoryPath())
	if len(entries) != 1 || entries[0].Name() != fmt.Sprintf("%04d-use-jwt-for-sessions.md", acc) {
		t.Fatalf("memory %v", entries)
	}
	data, _ := os.ReadFile(filepath.Join(p.wf.MemoryPath(), entries[0].Name()))
	if !strings.Contains(string(data), "Tokens expire after 1h.") {
		t.Fatal(string(data))
	}
}

// A Worker that proposes a breaking interface change gets
// decision:needed, not a close.
func TestBreakingChangeNeedsADecision(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("rename login", "Sim: breaking renames POST /login", "to:backend")
	runLead(t, p.lead("backend", 1, nil))
	p.waitFor("decision:needed", 30*time.Second, func() bool { return p.issue(id).HasLabel(roster.LabelNeeded) })
	if p.issue(id).Closed {
		t.Fatal("closed")
	}
}

// A Lead that restarts finds its running issue without a Worker and
// queues it again; the work then completes once.
func TestRecoverRequeuesRunning(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("job", "", "to:backend")
	l := p.lead("backend", 1, nil)
	if _, err := l.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.do(roster.Actor("backend"), outbox.Op{Kind: outbox.OpUnlabel, Issue: id, Labels: []string{roster.LabelQueued}},
		outbox.Op{Kind: outbox.OpLabel, Issue: id, Labels: []string{roster.LabelRunning}})
	runLead(t, p.lead("backend", 1, nil))
	p.waitFor("done", 30*time.Second, func() bool { return p.issue(id).Closed })
	if !hasText(p.comments(id), "Requeued") {
		t.Fatal("no requeue note")
	}
}

// A failed issue stays claimed; a person's /retry sends it back to a
// Worker (no leaked claim waiting for a restart).
func TestRetryAFailedIssue(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("flaky", "Sim: fail", "to:backend")
	runLead(t, p.lead("backend", 1, nil))
	p.waitFor("failed", 30*time.Second, func() bool { return p.issue(id).HasLabel(roster.LabelFailed) })
	if p.issue(id).Closed || p.issue(id).Assignee != roster.Actor("backend") {
		t.Fatalf("%+v", p.issue(id))
	}
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "/retry please"})
	p.waitFor("a second run", 30*time.Second, func() bool {
		n := 0
		for _, c := range p.comments(id) {
			if strings.Contains(c.Body, "failed (exit 1)") {
				n++
			}
		}
		return n == 2
	})
}

// An issue with Split is split into sub-issues for the same role; the
// parent waits for them, then its own Worker integrates and closes it.
func TestSplitIntoSubIssues(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("auth", "Split: tokens; sessions; logout", "to:backend")
	runLead(t, p.lead("backend", 2, nil))
	p.waitFor("parent closed", 30*time.Second, func() bool { return p.issue(id).Closed })
	subs, _ := p.ob.List(context.Background(), outbox.Query{Label: parentLabel(id), State: "closed"})
	if len(subs) != 3 || subs[0].Title != "tokens" {
		t.Fatalf("sub-issues %+v", subs)
	}
	// The parent closed after every sub-issue: its last close event is
	// the newest of the four.
	evs, _ := p.ob.Events(context.Background(), 0, 10000)
	var lastClosed int64
	for _, e := range evs {
		if e.Kind == outbox.EventClosed {
			lastClosed = e.Issue
		}
	}
	if lastClosed != id || !hasText(p.comments(id), "splits it into 3 sub-issues") {
		t.Fatalf("last closed #%d", lastClosed)
	}
}

// Workers run in the role's repo (role_repo), created if missing.
func TestWorkersRunInTheRoleRepo(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("where", "Sim: pwd", "to:qa")
	runLead(t, p.lead("qa", 1, nil))
	p.waitFor("done", 30*time.Second, func() bool { return p.issue(id).Closed })
	ev := fieldsOf(p.comments(id), roster.Actor("qa"))
	if got, want := ev[len(ev)-1][outbox.FieldTests], "cwd "+p.wf.RepoDir("qa"); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
