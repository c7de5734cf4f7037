package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// roleViews reads the team of the root: nil when it has no
// workflow.toml (or it cannot be read; check and the CLI's outbox
// commands say why).
func (a *app) roleViews(dir string) []lead.RoleView {
	cfg, err := config.Load(dir)
	if err != nil || !team.Exists(cfg.Team.OutboxDir(dir)) {
		return nil
	}
	wf, err := team.Load(cfg.Team.OutboxDir(dir))
	if err != nil {
		return nil
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{ReadOnly: true})
	if err != nil {
		return nil
	}
	defer ob.Close()
	views, err := lead.Views(a.ctx, wf, ob, cfg.Heartbeat.WarningAfter.Std(), cfg.Heartbeat.StaleAfter.Std(), time.Now())
	if err != nil {
		return nil
	}
	return views
}

// printRoles lists the team's roles after the status (nothing when the
// root has no workflow.toml): each Lead's health, cursor lag and work.
func (a *app) printRoles(dir string) {
	views := a.roleViews(dir)
	if views == nil {
		return
	}
	w := a.io.out
	fmt.Fprintln(w, a.t("cli.status.roles"))
	rows := make([][]string, 0, len(views))
	for _, v := range views {
		rows = append(rows, []string{v.Role, a.t("cli.status.lead." + strings.ToLower(v.Health)), strconv.FormatInt(v.Lag, 10),
			strconv.Itoa(v.Claimed), refs(v.Running), refs(v.Queued), blockedText(v.Blocked)})
	}
	writeTable(w, "  ", []string{a.t("cli.status.col.role"), a.t("cli.status.col.lead"), a.t("cli.status.col.lag"),
		a.t("cli.status.col.claimed"), a.t("cli.status.col.running"), a.t("cli.status.col.queued"), a.t("cli.status.col.blocked")}, rows)
}

func refs(ids []int64) string {
	if len(ids) == 0 {
		return "-"
	}
	return outbox.FormatRefs(ids)
}

// blockedText is "#5←#1,#2 #6←#3".
func blockedText(b map[string][]int64) string {
	if len(b) == 0 {
		return "-"
	}
	var parts []string
	for id, deps := range b {
		parts = append(parts, id+"←"+strings.ReplaceAll(outbox.FormatRefs(deps), " ", ""))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}
