package lead

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

func TestMentions(t *testing.T) {
	for text, want := range map[string]bool{
		"@backend please":       true,
		"ask @backend.":         true,
		"(@backend)":            true,
		"@backend-api please":   false,
		"mail ops@backend":      false,
		"@backends":             false,
		"@backend.v2 is a role": false,
		"backend":               false,
	} {
		if got := mentions(text, "backend"); got != want {
			t.Errorf("%q: %v", text, got)
		}
	}
}

// Each of the seed's three ways to address a role makes its Lead take
// the issue and its Worker do it: a to:<role> label, an assignment to
// the role, an @<role> mention in the issue or in a person's comment. A
// mention does not take an issue another role's label addresses, nor
// does an address that only looks like one.
func TestEveryTriggerTakesTheIssue(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	labelled := p.file("by label", "", "to:backend")
	assigned := p.file("by assignment", "")
	p.do("ann", outbox.Op{Kind: outbox.OpAssign, Issue: assigned, Assignee: "backend"})
	inBody := p.file("by mention", "@backend can you add rate limits?")
	inComment := p.file("by a comment", "")
	p.do("bob", outbox.Op{Kind: outbox.OpComment, Issue: inComment, Body: "@backend this one is yours"})
	qaIssue := p.file("qa's", "@backend may want to look", "to:qa")
	email := p.file("not a mention", "write to ops@backend")
	byLead := p.file("a Lead's mention", "")
	p.do("lead:qa", outbox.Op{Kind: outbox.OpComment, Issue: byLead, Body: "@backend FYI"})

	l := p.lead("backend", 4, nil)
	runLead(t, l)
	for _, id := range []int64{labelled, assigned, inBody, inComment} {
		p.waitFor(fmt.Sprintf("#%d done", id), 30*time.Second, func() bool { return p.issue(id).Closed })
		is := p.issue(id)
		ev := fieldsOf(p.comments(id), roster.Actor("backend"))
		if is.Assignee != roster.Actor("backend") || !is.HasLabel(roster.To("backend")) || !is.HasLabel(roster.LabelDone) ||
			ev[len(ev)-1][outbox.FieldIssueRef] != fmt.Sprintf("#%d", id) {
			t.Fatalf("#%d %q: %+v %v", id, is.Title, is, ev)
		}
	}
	head, _ := p.ob.Head(context.Background())
	p.waitFor("all read", 30*time.Second, func() bool { return l.Snapshot(context.Background()).Cursor >= head })
	for _, id := range []int64{qaIssue, email, byLead} {
		if is := p.issue(id); is.Assignee != "" || is.Closed || is.HasLabel(roster.To("backend")) {
			t.Fatalf("#%d %q was taken: %+v", id, is.Title, is)
		}
	}
}

// An issue cannot be blocked on itself: a Worker that reports its own
// issue as its blocker gets the issue failed, not blocked forever; a
// person's DependsOn on the issue itself is refused in the Lead's answer,
// and one in the body is ignored.
func TestSelfBlockIsRefused(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	// A fresh outbox numbers issues from 1, so a body can name its own.
	worker := p.file("the Worker blocks it on itself", "Sim: blocked #1", "to:backend")
	running := p.file("a person blocks it on itself", "Sim: sleep 1h", "to:backend")
	body := p.file("its body depends on itself", "DependsOn: #3", "to:backend")
	if worker != 1 || running != 2 || body != 3 {
		t.Fatalf("ids %d %d %d", worker, running, body)
	}
	l := p.lead("backend", 3, nil)
	runLead(t, l)
	p.waitFor("the Worker's self-block refused", 30*time.Second, func() bool { return p.issue(worker).HasLabel(roster.LabelFailed) })
	if is := p.issue(worker); is.HasLabel(roster.LabelBlocked) || !hasText(p.comments(worker), "Refused: the Worker reported #1 blocked by itself") {
		t.Fatalf("%+v %+v", is, p.comments(worker))
	}
	p.waitFor("the body's self-dependency ignored", 30*time.Second, func() bool { return p.issue(body).Closed })
	if !p.issue(body).HasLabel(roster.LabelDone) {
		t.Fatalf("%+v", p.issue(body))
	}
	p.waitFor("running", 30*time.Second, func() bool { return p.issue(running).HasLabel(roster.LabelRunning) })
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: running, Body: "wait for this one\nDependsOn: #2"})
	p.waitFor("the refusal", 30*time.Second, func() bool { return hasText(p.comments(running), "Refused: #2 cannot wait for itself") })
	s := l.Snapshot(context.Background())
	if is := p.issue(running); is.HasLabel(roster.LabelBlocked) || len(s.Blocked) != 0 || len(s.Running) != 1 {
		t.Fatalf("blocked on itself: %+v %+v", is, s)
	}
}

// A group cap names two roles: their Leads, two processes, never run
// more Workers together than the cap (each alone may run 2), and the
// role that waited starts when the other's Workers end.
func TestGroupCapIsSharedAcrossRoles(t *testing.T) {
	p := newProject(t, "[roles.backend]\n[roles.qa]\n[groups.checks]\nmax_concurrent = 2\nroles = [\"backend\", \"qa\"]\n", time.Hour)
	var ids []int64
	for i := range 3 {
		ids = append(ids, p.file(fmt.Sprintf("backend %d", i), "Sim: sleep 300ms", "to:backend"))
		ids = append(ids, p.file(fmt.Sprintf("qa %d", i), "Sim: sleep 300ms", "to:qa"))
	}
	if l := p.lead("backend", 2, nil); l.limit != 2 {
		t.Fatalf("limit %d", l.limit)
	}
	for _, role := range []string{"backend", "qa"} {
		cmd := exec.Command(os.Args[0], "lead", p.dir, role) // a Lead process, hard cap 2
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		})
	}
	most := 0
	p.waitFor("all six closed", 60*time.Second, func() bool {
		running, _ := p.ob.List(context.Background(), outbox.Query{Label: roster.LabelRunning, State: "open"})
		most = max(most, len(running))
		closed := 0
		for _, id := range ids {
			if p.issue(id).Closed {
				closed++
			}
		}
		return closed == len(ids)
	})
	if most > 2 {
		t.Fatalf("%d Workers of the group ran at once, cap 2", most)
	}
	// The outbox's own order proves it too: at no event were more than
	// two issues of the group running.
	evs, _ := p.ob.Events(context.Background(), 0, 100000)
	now := map[int64]bool{}
	for _, e := range evs {
		switch {
		case e.Kind == outbox.EventLabeled && e.Value == roster.LabelRunning:
			now[e.Issue] = true
		case e.Kind == outbox.EventUnlabeled && e.Value == roster.LabelRunning:
			delete(now, e.Issue)
		}
		if len(now) > 2 {
			t.Fatalf("at event %d, %d issues were running: %v", e.ID, len(now), now)
		}
	}
	for _, id := range ids {
		if !p.issue(id).HasLabel(roster.LabelDone) {
			t.Fatalf("#%d: %+v", id, p.issue(id))
		}
	}
}

// Two issues waiting for each other would wait forever as surely as one
// waiting for itself: the second wait is refused, through any chain of
// issues the Lead holds blocked.
func TestWaitLoopIsRefused(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	l := p.lead("backend", 1, nil)
	l.block(1, []int64{2})
	l.block(2, []int64{3})
	if ok, refused := l.acceptableDeps(3, []int64{1, 4}); !refused || len(ok) != 1 || ok[0] != 4 {
		t.Fatalf("%v %v", ok, refused)
	}
	if ok, refused := l.acceptableDeps(4, []int64{1}); refused || len(ok) != 1 {
		t.Fatalf("%v %v", ok, refused)
	}
}

// An issue that mentions two roles is taken by one Lead: the claims race
// (both Leads read it free before either commits) and the second is
// lost in the outbox's transaction, so it is never worked twice.
func TestTwoLeadsOneClaim(t *testing.T) {
	p := newProject(t, twoRoles, time.Hour)
	id := p.file("sync", "@backend @qa please look")
	ctx := context.Background()
	evs, err := p.ob.Events(ctx, 0, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
	a, b := p.lead("backend", 1, nil), p.lead("qa", 1, nil)
	ea, err := a.react(ctx, evs[0])
	if err != nil || ea == nil {
		t.Fatalf("%v %v", ea, err)
	}
	eb, err := b.react(ctx, evs[0])
	if err != nil || eb == nil {
		t.Fatalf("%v %v", eb, err)
	}
	var ba, bb batch
	bb.add(eb, evs[0])
	if n, err := b.commit(ctx, &bb); err != nil || n != 1 {
		t.Fatalf("qa's claim: %d %v", n, err)
	}
	ba.add(ea, evs[0])
	if n, err := a.commit(ctx, &ba); err != nil || n != 0 {
		t.Fatalf("backend's late claim: %d %v", n, err)
	}
	is := p.issue(id)
	if is.Assignee != roster.Actor("qa") || is.HasLabel(roster.To("backend")) || len(p.comments(id)) != 1 {
		t.Fatalf("%+v %+v", is, p.comments(id))
	}
	if s := a.Snapshot(ctx); len(s.Queued) != 0 || a.cursor != evs[0].ID {
		t.Fatalf("backend queued %v, cursor %d", s.Queued, a.cursor)
	}
}
