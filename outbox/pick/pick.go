// Package pick opens the outbox a team's workflow.toml names: the SQLite
// file (the default), or the outbox on a daokit hub (backend = "nats").
// It is its own package so that the window, which reads the outbox
// through outbox and team, never imports the hub's client: only the
// commands and the controller import it, and the command that starts
// the window hands it Open (read-only) as tui.Options.OpenOutbox.
package pick

import (
	"context"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/natsbox"
	"github.com/daokit/daokit/team"
)

// Open opens wf's outbox for a process that writes it (a Lead, the CLI,
// the controller): the SQLite file, the hub's stream, or the GitHub
// repository or GitLab project through its mirror at wf.DBPath() with
// token (Token: GITHUB_TOKEN or GH_TOKEN, GITLAB_TOKEN, which only
// Leads and the person's own commands have; Workers get none). A
// read-only open of a GitHub or GitLab outbox reads the mirror the
// Leads keep, without a token.
func Open(ctx context.Context, wf *team.Workflow, token string, o outbox.Options) (outbox.Backend, error) {
	switch wf.Outbox.Backend {
	case team.BackendNATS:
		return natsbox.Open(ctx, hubOptions(wf, o))
	case team.BackendGitHub, team.BackendGitLab:
		if o.ReadOnly {
			return outbox.OpenSQLite(wf.DBPath(), o) // the mirror the Leads keep
		}
		if wf.Outbox.Backend == team.BackendGitLab {
			return outbox.OpenGitLab(ctx, ForgeConfig(wf, token, o))
		}
		return outbox.OpenGitHub(ctx, ForgeConfig(wf, token, o))
	}
	return outbox.OpenSQLite(wf.DBPath(), o)
}

// Token is the token of wf's backend in the environment getenv reads:
// GITLAB_TOKEN for gitlab, else GITHUB_TOKEN or GH_TOKEN (the SQLite
// and hub backends take none).
func Token(wf *team.Workflow, getenv func(string) string) string {
	if wf.Outbox.Backend == team.BackendGitLab {
		return outbox.GitLabTokenFrom(getenv)
	}
	return outbox.TokenFrom(getenv)
}

// ForgeConfig is the GitHub or GitLab backend's configuration of wf.
func ForgeConfig(wf *team.Workflow, token string, o outbox.Options) outbox.ForgeConfig {
	return outbox.ForgeConfig{Repo: wf.Outbox.Repo, APIURL: wf.Outbox.APIURL, Token: token, Mirror: wf.DBPath(), Options: o}
}

// InitResult is what Init did, and where.
type InitResult struct {
	outbox.InitResult
	// Where names the outbox made or kept: the database file, or the
	// hub and its stream.
	Where string
}

// Init makes wf's outbox when there is none (daokit outbox init); replace
// is Init's --force for the SQLite file (a hub's stream that is refused
// is never replaced: it is the hub operator's to look at).
func Init(ctx context.Context, wf *team.Workflow, replace bool) (InitResult, error) {
	if wf.Outbox.Backend == team.BackendNATS {
		o := hubOptions(wf, outbox.Options{})
		created, err := natsbox.Init(ctx, o)
		return InitResult{InitResult: outbox.InitResult{Created: created}, Where: natsbox.Where(o)}, err
	}
	res, err := outbox.Init(wf.DBPath(), replace)
	return InitResult{InitResult: res, Where: wf.DBPath()}, err
}

// Where names wf's outbox: the database file, or the hub and its stream.
func Where(wf *team.Workflow) string {
	if wf.Outbox.Backend == team.BackendNATS {
		return natsbox.Where(hubOptions(wf, outbox.Options{}))
	}
	return wf.DBPath()
}

func hubOptions(wf *team.Workflow, o outbox.Options) natsbox.Options {
	return natsbox.Options{URL: wf.Outbox.URL, Credentials: wf.CredentialsPath(), Root: wf.Outbox.Root,
		ReadOnly: o.ReadOnly, WakeInterval: o.WakeInterval}
}
