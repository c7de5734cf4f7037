package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// teamStatus is the team of a root as status shows it.
type teamStatus struct {
	// has: the root has a team (a workflow.toml, or an outbox_root
	// daokit.toml names).
	has   bool
	views []roster.RoleView
	// issues are the outbox's issues by role and state (nil when the
	// outbox was refused).
	issues []roster.IssueView
	// problems say why the team is off or blind: workflow.toml's errors,
	// a refused outbox, one line each in the reader's language.
	problems []string
}

// teamOf reads the team of the root: its roles (each Lead's health, lag,
// work and last exit) and its problems.
func (a *app) teamOf(dir string) teamStatus {
	cfg, err := config.Load(dir)
	if err != nil {
		return teamStatus{}
	}
	odir := cfg.Team.OutboxDir(dir)
	if !team.Exists(odir) && cfg.Team.OutboxRoot == "" {
		return teamStatus{}
	}
	ts := teamStatus{has: true}
	wf, err := team.Load(odir)
	if err != nil {
		if es, ok := err.(team.Errors); ok {
			for _, e := range es {
				ts.problems = append(ts.problems, e.Localize(a.loc))
			}
		} else {
			ts.problems = append(ts.problems, err.Error())
		}
		return ts
	}
	var ob outbox.Backend
	if s, err := pick.Open(a.ctx, wf, "", outbox.Options{ReadOnly: true}); err != nil {
		ts.problems = append(ts.problems, a.outboxProblem(err))
	} else {
		defer s.Close()
		ob = s
	}
	views, err := roster.Views(a.ctx, wf, ob, cfg.Heartbeat.WarningAfter.Std(), cfg.Heartbeat.StaleAfter.Std(), time.Now())
	if err != nil {
		ts.problems = append(ts.problems, err.Error())
		return ts
	}
	ts.views = views
	if ob != nil {
		if ts.issues, err = roster.Issues(a.ctx, ob, views); err != nil {
			ts.problems = append(ts.problems, err.Error())
		}
	}
	return ts
}

// withTeam adds the team to status --json: "roles" (each with its
// "last_exit"), "issues" (the issues view of the window: role, state,
// what blocks the blocked ones) and, when the team is off or blind, "team_problems". A
// root without a team gets neither: it prints what the Python tool does.
func (ts teamStatus) withTeam(o ledger.Object) ledger.Object {
	if !ts.has {
		return o
	}
	views := ts.views
	if views == nil {
		views = []roster.RoleView{}
	}
	o = o.With("roles", views)
	issues := ts.issues
	if issues == nil {
		issues = []roster.IssueView{}
	}
	o = o.With("issues", issues)
	if len(ts.problems) > 0 {
		o = o.With("team_problems", ts.problems)
	}
	return o
}

// printRoles lists the team's roles after the status (nothing when the
// root has no team): each Lead's health, cursor lag and work, then why
// each Lead that is down ended, and the team's problems.
func (a *app) printRoles(ts teamStatus) {
	if !ts.has {
		return
	}
	w := a.io.out
	fmt.Fprintln(w, a.t("cli.status.roles"))
	for _, p := range ts.problems {
		fmt.Fprintln(w, "  "+a.t("cli.status.team_problem", "Problem", p))
	}
	if len(ts.views) == 0 {
		return
	}
	rows := make([][]string, 0, len(ts.views))
	for _, v := range ts.views {
		rows = append(rows, []string{v.Role, a.t("cli.status.lead." + strings.ToLower(v.Health)), strconv.FormatInt(v.Lag, 10),
			strconv.Itoa(v.Claimed), refs(v.Running), refs(v.Queued), blockedText(v.Blocked)})
	}
	writeTable(w, "  ", []string{a.t("cli.status.col.role"), a.t("cli.status.col.lead"), a.t("cli.status.col.lag"),
		a.t("cli.status.col.claimed"), a.t("cli.status.col.running"), a.t("cli.status.col.queued"), a.t("cli.status.col.blocked")}, rows)
	for _, v := range ts.views {
		if w := v.RateWait; w != nil {
			fmt.Fprintln(a.io.out, "  "+a.t("cli.status.rate_wait", "Role", v.Role, "Service", w.ServiceName(), "Reason", a.t("team.github.wait."+strings.ReplaceAll(w.Reason, "-", "_")),
				"Until", w.Until.UTC().Format("2006-01-02 15:04:05 UTC")))
		}
	}
	for _, v := range ts.views {
		for _, wk := range v.Workers {
			if wk.Health == roster.HealthWarning || wk.Health == roster.HealthStale {
				// A Worker silent past the heartbeat's bounds: STALE ones
				// are stopped and started again (RestartAt).
				fmt.Fprintln(w, "  "+a.t("cli.status.worker_silent", "Role", v.Role, "Issue", wk.Issue, "Attempt", wk.Attempt,
					"Health", a.t("cli.status.lead."+strings.ToLower(wk.Health)), "Silent", (time.Duration(wk.SilentMS)*time.Millisecond).Round(time.Second).String(),
					"Restarts", wk.Restarts))
			}
		}
		if v.Health == roster.HealthDown && v.LastExit != nil {
			fmt.Fprintln(w, "  "+a.t("cli.status.lead_exit", "Role", v.Role, "Reason", v.LastExit.Text(a.t)))
		}
	}
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
