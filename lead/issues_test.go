package lead

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
)

// roster.Issues shows what real Leads did: backend's long issue running, qa's
// issue blocked by it (the qa Lead's comment names both backend issues;
// the quick one has closed since and blocks nothing), the quick one done;
// sorted by role, then state. What a Lead's status file says
// blocks an issue wins over its comments.
func TestIssuesShowWhatTheLeadsDid(t *testing.T) {
	p := newProject(t, "[roles.backend]\n[roles.qa]\ndepends_on = [\"backend\"]\n", 20*time.Millisecond)
	quick := p.file("Health check", "Sim: sleep 10ms", roster.To("backend"))
	long := p.file("Login API", "Sim: sleep 60s", roster.To("backend"))
	test := p.file("Test login", "", roster.To("qa"))
	runLead(t, p.lead("backend", 2, nil))
	runLead(t, p.lead("qa", 1, nil))
	ctx := context.Background()
	p.waitFor("qa's issue blocked and backend's first one done", 20*time.Second, func() bool {
		return p.issue(test).HasLabel(roster.LabelBlocked) && p.issue(quick).HasLabel(roster.LabelDone) && p.issue(long).HasLabel(roster.LabelRunning)
	})
	list, err := roster.Issues(ctx, p.ob, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range list {
		got = append(got, v.Role+" "+v.State+" "+v.Title)
	}
	want := []string{"backend running Login API", "backend done Health check", "qa blocked Test login"}
	if !slices.Equal(got, want) {
		t.Fatalf("issues %q, want %q", got, want)
	}
	if b := list[2].BlockedBy; !slices.Equal(b, []int64{long}) {
		t.Errorf("#%d blocked by %v, want [%d]", test, b, long)
	}
	list, err = roster.Issues(ctx, p.ob, []roster.RoleView{{Role: "qa", Blocked: map[string][]int64{"#3": {long, 9}}}})
	if err != nil {
		t.Fatal(err)
	}
	if b := list[2].BlockedBy; !slices.Equal(b, []int64{long, 9}) {
		t.Errorf("with a status file: blocked by %v", b)
	}
}
