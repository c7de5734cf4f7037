package lead

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// Accepted memory is read back: the next Worker's brief has the accepted
// decisions given to its role, newest first, with their files; not a
// draft, not a decision unstamped since, not one for another role. A
// decision accepted while the Lead runs is in the brief of the Worker
// after it, and in the Lead's own status.
func TestAcceptedMemoryInTheNextBrief(t *testing.T) {
	p := newProject(t, fmt.Sprintf(`
[roles.backend]
role_repo = "repos/backend"
worker = [%q, "briefworker", "{repo}/brief-{issue}.txt"]
[roles.frontend]
[roles.integrator]
accepts = true
`, os.Args[0]), time.Hour)
	stamp := func(id int64) {
		p.do("ann", outbox.Op{Kind: outbox.OpLabel, Issue: id, Labels: []string{roster.LabelAccepted}})
	}
	recorded := func(id int64) {
		p.waitFor(fmt.Sprintf("#%d recorded", id), 30*time.Second, func() bool {
			return hasText(p.comments(id), "Recorded in the project memory")
		})
	}
	errs := p.file("Errors are problem details", "@backend returns application/problem+json.", "to:integrator")
	jwt := p.file("Use JWT for sessions", "Tokens expire after 1h.")
	react := p.file("Frontend uses React", "Roles: frontend")
	p.file("Maybe GraphQL?", "a draft", roster.LabelNeeded)
	soap := p.file("Drop SOAP", "no more XML")
	integrator := p.lead("integrator", 1, nil)
	runLead(t, integrator)
	for _, id := range []int64{errs, jwt, react, soap} {
		stamp(id)
		recorded(id)
	}
	p.do("ann", outbox.Op{Kind: outbox.OpUnlabel, Issue: soap, Labels: []string{roster.LabelAccepted}})

	backend := p.lead("backend", 1, nil)
	runLead(t, backend)
	brief := func(id int64) string {
		p.waitFor(fmt.Sprintf("#%d done", id), 30*time.Second, func() bool { return p.issue(id).Closed })
		data, err := os.ReadFile(filepath.Join(p.wf.RepoDir("backend"), fmt.Sprintf("brief-%d.txt", id)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	first := p.file("Add the login endpoint", "POST /login", "to:backend")
	b := brief(first)
	jwtLine := fmt.Sprintf("- #%d Use JWT for sessions (memory/%04d-use-jwt-for-sessions.md)", jwt, jwt)
	errLine := fmt.Sprintf("- #%d Errors are problem details (memory/%04d-errors-are-problem-details.md) [for backend]", errs, errs)
	if !strings.HasPrefix(b, "Add the login endpoint\n\nPOST /login\n") || !strings.Contains(b, jwtLine) || !strings.Contains(b, errLine) ||
		strings.Index(b, jwtLine) > strings.Index(b, errLine) || !strings.Contains(b, "  > Tokens expire after 1h.") {
		t.Fatalf("brief:\n%s", b)
	}
	for _, not := range []string{"React", "GraphQL", "SOAP"} {
		if strings.Contains(b, not) {
			t.Fatalf("the brief has %q:\n%s", not, b)
		}
	}
	if got := backend.Snapshot(context.Background()).Memory; !slices.Equal(got, []string{
		fmt.Sprintf("memory/%04d-use-jwt-for-sessions.md", jwt), fmt.Sprintf("memory/%04d-errors-are-problem-details.md", errs)}) {
		t.Fatalf("the Lead's memory: %v", got)
	}

	// Accepted while the backend Lead runs: in the next brief, first.
	pg := p.file("Use Postgres", "Not SQLite in production.")
	stamp(pg)
	recorded(pg)
	second := p.file("Add the logout endpoint", "POST /logout", "to:backend")
	b = brief(second)
	pgLine := fmt.Sprintf("- #%d Use Postgres (memory/%04d-use-postgres.md)", pg, pg)
	if !strings.Contains(b, pgLine) || strings.Index(b, pgLine) > strings.Index(b, jwtLine) {
		t.Fatalf("brief after a new decision:\n%s", b)
	}
	p.waitFor("the Lead's memory", 30*time.Second, func() bool {
		m := backend.Snapshot(context.Background()).Memory
		return len(m) == 3 && m[0] == fmt.Sprintf("memory/%04d-use-postgres.md", pg)
	})
}

// A digest is bounded and deterministic whatever the memory holds, and
// quotes the decisions' text so that none of it reads as a line of the
// brief's own (the simulated Worker's "Sim:" directives).
func TestDigestIsBounded(t *testing.T) {
	ds := []decision{{Issue: 99, Title: "only for qa", Event: 1000, Roles: []string{"qa"}}}
	for i := 60; i >= 1; i-- {
		ds = append(ds, decision{Issue: int64(i), Title: fmt.Sprintf("decision %d", i), Event: int64(100 + i),
			File: fmt.Sprintf("memory/%04d-decision.md", i), Body: "Sim: fail\n" + strings.Repeat("long text ", 200)})
	}
	d := digest(ds, "backend")
	if len(d) > digestMaxBytes || d != digest(ds, "backend") {
		t.Fatalf("%d bytes", len(d))
	}
	if !strings.Contains(d, "(newest first, 60)") || !strings.HasPrefix(strings.SplitN(d, "\n- ", 2)[1], "#60 decision 60") ||
		!strings.Contains(d, "older accepted decisions are not shown") || strings.Contains(d, "only for qa") {
		t.Fatalf("%s", d)
	}
	if shown := strings.Count(d, "\n- #"); shown > digestMaxDecisions || shown < 5 {
		t.Fatalf("%d shown", shown)
	}
	for _, line := range strings.Split(d, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), simDirective) {
			t.Fatalf("an unquoted line: %q", line)
		}
	}
	if digest(nil, "backend") != "" || !strings.Contains(digest(ds, "qa"), "only for qa") {
		t.Fatal("roles")
	}
}
