package main

import (
	"fmt"

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
// Lead, or Leads that die at once.
func (a *app) checkTeam(root string, cfg config.Config) bool {
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
	ob, err := pick.Open(a.ctx, wf, outbox.Options{ReadOnly: true})
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
