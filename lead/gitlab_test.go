package lead

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
)

const leadGitLabToken = "glpat-leadTOKEN0123456789abcdef"

func newGitLabFake(t *testing.T) *fakegitlab.Server {
	f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{leadGitLabToken: {Username: "daokit-bot", Level: 30}}, nil, "acme/platform/app")
	t.Cleanup(f.Close)
	return f
}

// gitlabForge is the GitLab stand-in as the team tests read it.
func gitlabForge(f *fakegitlab.Server) forgeFake {
	const p = "acme/platform/app"
	return forgeFake{backend: "gitlab", repo: p, url: f.URL, token: leadGitLabToken, tokenEnv: []string{"GITLAB_TOKEN"},
		commentPath: "/issues/1/notes", inject: f.Inject,
		open: func(title, body, label string) { f.OpenIssue(p, "ann", title, body, label) },
		state: func(n int64) (string, []string) {
			labels, _, state, _ := f.Issue(p, n)
			return state, labels
		},
		comments: func(n int64) []string { return f.Notes(p, n) },
		requests: f.Requests}
}

// The example team on a GitLab project in a subgroup, as on GitHub.
func TestTeamOnGitLab(t *testing.T) { runTeamOnForge(t, gitlabForge(newGitLabFake(t))) }

// A Lead killed while GitLab takes its claim note answers the trigger
// once, as on GitHub.
func TestLeadKilledMidTriggerOnGitLab(t *testing.T) {
	killMidTriggerOnForge(t, gitlabForge(newGitLabFake(t)))
}

// A Lead that stops on a GitLab set-up problem says which, with a
// GITLAB_ code, never the token.
func TestExitNamesTheGitLabProblem(t *testing.T) {
	f := newGitLabFake(t)
	wf := forgeProject(t, gitlabForge(f))
	_, err := pick.Open(context.Background(), wf, "wrong-token", outbox.Options{})
	e := roster.ExitOf("backend", 1, err)
	if e.Reason != outbox.GitLabBadToken || e.Repo != "acme/platform/app" || e.API != f.URL {
		t.Fatalf("%+v", e)
	}
	text := e.Text(func(id string, kv ...any) string { return fmt.Sprint(append([]any{id}, kv...)...) })
	if !strings.HasPrefix(text, "team.github.GITLAB_BAD_TOKEN") || strings.Contains(text, "wrong-token") {
		t.Fatalf("%q", text)
	}
}

// GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET are outbox credentials: no
// Worker gets them.
func TestGitLabSecretsAreSecret(t *testing.T) {
	for _, kv := range []string{"GITLAB_TOKEN=" + leadGitLabToken, outbox.GitLabWebhookSecretEnv + "=s"} {
		if !isSecretEnv(kv) {
			t.Fatalf("%s is given to Workers", kv)
		}
	}
}
