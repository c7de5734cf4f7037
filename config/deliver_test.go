package config

import (
	"strings"
	"testing"
)

// TestDeliverAsPullRequest: a lane's deliver takes merge (the default)
// or pr; [worktrees] remote defaults to origin, pr_repo takes
// owner/name and pr_api_url a URL; anything else is refused, naming the
// key, in both languages' words.
func TestDeliverAsPullRequest(t *testing.T) {
	c, err := Parse([]byte(`
[[lanes]]
name = "coder"
deliver = "pr"

[[lanes]]
name = "reviewer"

[worktrees]
pr_repo = "acme/app"
pr_api_url = "https://ghe.example.com/api/v3"
`), "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	coder, _ := c.Lane("coder")
	reviewer, _ := c.Lane("reviewer")
	if !coder.DeliversPR() || reviewer.DeliversPR() {
		t.Errorf("deliver: coder %q, reviewer %q", coder.Deliver, reviewer.Deliver)
	}
	if w := c.Worktrees; w.Remote != DefaultRemote || w.PRRepo != "acme/app" || w.PRAPIURL != "https://ghe.example.com/api/v3" {
		t.Errorf("worktrees %+v", w)
	}
	for doc, key := range map[string]string{
		"[[lanes]]\nname = \"a\"\ndeliver = \"push\"\n":             "lanes[0].deliver",
		"[worktrees]\npr_repo = \"acme\"\n":                         "worktrees.pr_repo",
		"[worktrees]\npr_api_url = \"ghe.example.com\"\n":           "worktrees.pr_api_url",
		"[worktrees]\nremote = \"--upload-pack=x\"\n":               "worktrees.remote",
		"[worktrees]\npr_forge = \"gitea\"\n":                       "worktrees.pr_forge",
		"[worktrees]\npr_forge = \"github\"\npr_repo = \"a/b/c\"\n": "worktrees.pr_repo",
		"[worktrees]\npr_forge = \"gitlab\"\npr_repo = \"acme\"\n":  "worktrees.pr_repo",
	} {
		_, err := Parse([]byte(doc), "daokit.toml", "/r")
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

// TestDeliverAsMergeRequest: pr_forge = "gitlab" takes a GitLab
// project's path, subgroups and all; unset, either shape is taken (the
// remote decides the forge).
func TestDeliverAsMergeRequest(t *testing.T) {
	for _, doc := range []string{
		"[worktrees]\npr_forge = \"gitlab\"\npr_repo = \"acme/platform/app\"\npr_api_url = \"https://gitlab.example.com/api/v4\"\n",
		"[worktrees]\npr_repo = \"acme/platform/app\"\n",
	} {
		c, err := Parse([]byte(doc), "daokit.toml", "/r")
		if err != nil || c.Worktrees.PRRepo != "acme/platform/app" {
			t.Errorf("%q: %+v, %v", doc, c.Worktrees, err)
		}
	}
}
