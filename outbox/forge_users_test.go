package outbox

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegitlab"
)

// Each forge has its own rule for a user's name: a dotted or
// underscored name is a GitLab user and never a GitHub login.
func TestForgeUsernameRules(t *testing.T) {
	for _, c := range []struct {
		name           string
		github, gitlab bool
	}{
		{"ann", true, true},
		{"ann-lee", true, true},
		{"ann.lee", false, true},
		{"ci_bot", false, true},
		{"_svc", false, true},
		{".hidden", false, false},
		{"-dash", true, false},
		{"trailing.", false, false},
		{"repo.git", false, false},
		{"feed.atom", false, false},
		{"lead:backend", false, false},
		{"", false, false},
		{strings.Repeat("a", 40), false, true},
		{strings.Repeat("a", 256), false, false},
	} {
		if got := githubUsername(c.name); got != c.github {
			t.Errorf("github %q: %v", c.name, got)
		}
		if got := gitlabUsername(c.name); got != c.gitlab {
			t.Errorf("gitlab %q: %v", c.name, got)
		}
	}
}

// On GitLab, "ann.lee" and "ci_bot" are assigned as GitLab users (by
// their ids), on opening and later, not given an assignee: label.
func TestGitLabAssignsDottedAndUnderscoredUsers(t *testing.T) {
	f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{glToken: {Username: "daokit-bot", Level: 30}},
		[]string{"ann.lee", "ci_bot"}, testProject)
	t.Cleanup(f.Close)
	g, _ := openGL(t, f, glMirror(t), 20*time.Millisecond)
	ctx := context.Background()
	r, err := g.Apply(ctx, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "search", Assignee: "ann.lee"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := r.Issues[0]
	labels, assignees, _, _ := f.Issue(testProject, n)
	if !slices.Equal(assignees, []string{"ann.lee"}) || slices.ContainsFunc(labels, func(l string) bool { return strings.HasPrefix(l, AssigneeLabelPrefix) }) {
		t.Fatalf("opened for ann.lee: assignees %v labels %v", assignees, labels)
	}
	if _, err := g.Apply(ctx, Change{Actor: "ann", Ops: []Op{{Kind: OpAssign, Issue: n, Assignee: "ci_bot"}}}); err != nil {
		t.Fatal(err)
	}
	labels, assignees, _, _ = f.Issue(testProject, n)
	if !slices.Equal(assignees, []string{"ci_bot"}) || slices.ContainsFunc(labels, func(l string) bool { return strings.HasPrefix(l, AssigneeLabelPrefix) }) {
		t.Fatalf("assigned to ci_bot: assignees %v labels %v", assignees, labels)
	}
	if is, err := g.Issue(ctx, n); err != nil || is.Assignee != "ci_bot" {
		t.Fatalf("mirror: %+v %v", is, err)
	}
}
