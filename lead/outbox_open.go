package lead

import (
	"context"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// OpenOutbox opens wf's outbox for a process that writes it (a Lead,
// the CLI, the controller): the SQLite file, or the GitHub repository
// through its mirror at wf.DBPath() with the
// token (outbox.TokenFrom: GITHUB_TOKEN or GH_TOKEN, which only Leads
// and the person's own commands have; Workers get neither, see
// workerEnv). Readers that only look
// (the window, status) open wf.DBPath() with outbox.OpenSQLite, which
// for GitHub is the mirror the Leads keep.
func OpenOutbox(ctx context.Context, wf *team.Workflow, token string, o outbox.Options) (outbox.Backend, error) {
	if wf.Outbox.Backend == team.BackendGitHub {
		return outbox.OpenGitHub(ctx, GitHubConfig(wf, token, o))
	}
	return outbox.OpenSQLite(wf.DBPath(), o)
}

// GitHubConfig is the GitHub backend's configuration of wf.
func GitHubConfig(wf *team.Workflow, token string, o outbox.Options) outbox.GitHubConfig {
	return outbox.GitHubConfig{Repo: wf.Outbox.Repo, APIURL: wf.Outbox.APIURL, Token: token, Mirror: wf.DBPath(), Options: o}
}

// secretEnv are the variables that hold outbox credentials: a Worker
// never gets them (seed 003: only Leads hold Outbox credentials).
var secretEnv = []string{"GITHUB_TOKEN=", "GH_TOKEN=", "GH_ENTERPRISE_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=", outbox.WebhookSecretEnv + "="}

// isSecretEnv reports whether kv ("NAME=value") is an outbox credential.
func isSecretEnv(kv string) bool {
	for _, p := range secretEnv {
		if len(kv) >= len(p) && kv[:len(p)] == p {
			return true
		}
	}
	return false
}
