package lead

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

const leadToken = "ghp_leadTOKEN0123456789abcdef"

func newGitHubFake(t *testing.T) *fakegithub.Server {
	f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{leadToken: {Login: "daokit-bot", Push: true}}, "acme/app")
	t.Cleanup(f.Close)
	return f
}

// githubForge is the GitHub stand-in as the team tests read it.
func githubForge(f *fakegithub.Server) forgeFake {
	return forgeFake{backend: "github", repo: "acme/app", url: f.URL, token: leadToken, tokenEnv: []string{"GITHUB_TOKEN", "GH_TOKEN"},
		commentPath: "/issues/1/comments", inject: f.Inject,
		open: func(title, body, label string) { f.OpenIssue("acme/app", "ann", title, body, label) },
		state: func(n int64) (string, []string) {
			labels, _, state, _ := f.Issue("acme/app", n)
			return state, labels
		},
		comments: func(n int64) []string { return f.Comments("acme/app", n) },
		requests: f.Requests}
}

// githubProject is an outbox root whose outbox is repo acme/app on the
// stand-in.
func githubProject(t *testing.T, f *fakegithub.Server) *team.Workflow {
	return forgeProject(t, githubForge(f))
}

func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// The example team on GitHub: three issues filed by a person on GitHub,
// qa's blocked by backend's and unblocked when it closes, all closed
// with their Worker's evidence; no Worker's environment has the token.
func TestTeamOnGitHub(t *testing.T) { runTeamOnForge(t, githubForge(newGitHubFake(t))) }

// A Lead SIGKILLed while GitHub is taking its claim comment (GitHub
// posts it; the Lead never hears) answers the trigger once: its
// successor finds the comment by its marker instead of posting again.
func TestLeadKilledMidTriggerOnGitHub(t *testing.T) {
	killMidTriggerOnForge(t, githubForge(newGitHubFake(t)))
}

// A Lead that stops on a GitHub set-up problem says which, in the
// person's words (status and the roles pane show roster.Exit.Text).
func TestExitNamesTheGitHubProblem(t *testing.T) {
	f := newGitHubFake(t)
	wf := githubProject(t, f)
	_, err := pick.Open(context.Background(), wf, "wrong-token", outbox.Options{})
	e := roster.ExitOf("backend", 1, err)
	if e.Reason != outbox.GitHubBadToken || e.Repo != "acme/app" || e.API != f.URL {
		t.Fatalf("%+v", e)
	}
	text := e.Text(func(id string, kv ...any) string { return fmt.Sprint(append([]any{id}, kv...)...) })
	if !strings.HasPrefix(text, "team.github.GITHUB_BAD_TOKEN") || strings.Contains(text, "wrong-token") {
		t.Fatalf("%q", text)
	}
}
