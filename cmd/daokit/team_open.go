package main

import (
	"context"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// teamEnv is what the outbox, lead and status commands share: the
// ledger's settings, the project's workflow.toml and its outbox.
type teamEnv struct {
	cfg config.Config
	wf  *team.Workflow
}

// loadTeam reads daokit.toml under root and workflow.toml in outboxDir
// (or, when empty, in daokit.toml's team.outbox_root), and checks the
// hard caps against the roles.
func (a *app) loadTeam(root, outboxDir string) (*teamEnv, error) {
	dir, err := absRoot(root)
	if err != nil {
		return nil, failf("E_TEAM", err.Error())
	}
	cfg, err := config.Load(dir)
	if err != nil {
		if es := config.AsErrors(err); es != nil {
			return nil, failf("E_CONFIG", es.Localize(a.loc))
		}
		return nil, failf("E_CONFIG", err.Error())
	}
	if outboxDir == "" {
		outboxDir = cfg.Team.OutboxDir(dir)
	}
	wf, err := team.Load(outboxDir)
	if err == nil {
		err = wf.CheckHardCaps(cfg.Team.RoleMaxConcurrent, config.Path(dir))
	}
	if err != nil {
		if es, ok := err.(team.Errors); ok {
			return nil, failf("E_WORKFLOW", es.Localize(a.loc))
		}
		return nil, failf("E_WORKFLOW", err.Error())
	}
	return &teamEnv{cfg: cfg, wf: wf}, nil
}

// open opens the project's outbox for writing (the SQLite file, the
// hub's stream, or GitHub or GitLab through its mirror).
func (t *teamEnv) open(ctx context.Context, getenv func(string) string) (outbox.Backend, error) {
	return pick.Open(ctx, t.wf, pick.Token(t.wf, getenv), outbox.Options{})
}
