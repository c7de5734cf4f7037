package main

import (
	"fmt"
	"os"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// checkTeam validates the root's team, when it has one (a workflow.toml
// in the outbox root, or an outbox_root that daokit.toml names): every
// problem of workflow.toml (and of daokit.toml's hard caps against it),
// one line each, then the outbox database, which must be there and be an
// outbox. A broken team is a failed check: the controller would run no
// Lead, or Leads that die at once. A GitHub or GitLab outbox is asked once whether
// the token may write the repository's issues, unless offline.
func (a *app) checkTeam(root string, cfg config.Config, offline bool) bool {
	dir := cfg.Team.OutboxDir(root)
	if !team.Exists(dir) && cfg.Team.OutboxRoot == "" {
		return true
	}
	wf, err := team.Load(dir)
	if err == nil {
		err = wf.CheckHardCaps(cfg.Team.RoleMaxConcurrent, config.Path(root))
	}
	if err != nil {
		if es, ok := err.(team.Errors); ok {
			for _, e := range es {
				fmt.Fprintln(a.io.err, "E_CHECK_WORKFLOW_INVALID: "+e.Localize(a.loc))
			}
		} else {
			fmt.Fprintln(a.io.err, "E_CHECK_WORKFLOW_INVALID: "+err.Error())
		}
		return false
	}
	if wf.Outbox.Backend == team.BackendGitHub || wf.Outbox.Backend == team.BackendGitLab {
		return a.checkGitHub(wf, offline)
	}
	ob, err := pick.Open(a.ctx, wf, "", outbox.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintln(a.io.err, "E_CHECK_OUTBOX_INVALID: "+a.outboxProblem(err))
		return false
	}
	defer ob.Close()
	if _, err := ob.Head(a.ctx); err != nil {
		fmt.Fprintln(a.io.err, "E_CHECK_OUTBOX_INVALID: "+a.t("cli.file.unreadable", "Path", pick.Where(wf), "Reason", err.Error()))
		return false
	}
	return true
}

// checkGitHub validates a GitHub or GitLab outbox: the token is in the
// environment, the service accepts it for the repository's issues (one
// request, skipped offline), and the local mirror, when a Lead has made
// it already, is an outbox.
func (a *app) checkGitHub(wf *team.Workflow, offline bool) bool {
	gc := pick.ForgeConfig(wf, pick.Token(wf, a.getenv), outbox.Options{ReadOnly: true})
	classify, check := outbox.AsGitHubError, outbox.CheckGitHub
	if wf.Outbox.Backend == team.BackendGitLab {
		classify, check = outbox.AsGitLabError, outbox.CheckGitLab
	}
	var err error
	if gc.Token == "" {
		err = classify(outbox.ErrNoToken, gc.Repo, gc.APIURL)
	} else if !offline {
		err = check(a.ctx, gc)
	}
	if err != nil {
		fmt.Fprintln(a.io.err, "E_CHECK_OUTBOX_INVALID: "+a.outboxProblem(err))
		return false
	}
	if _, serr := os.Stat(wf.DBPath()); serr == nil {
		if err := outbox.Check(wf.DBPath()); err != nil {
			fmt.Fprintln(a.io.err, "E_CHECK_OUTBOX_INVALID: "+a.outboxProblem(err))
			return false
		}
	}
	return true
}
