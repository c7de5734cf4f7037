package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// exportMaxBlock is how long one request of an export waits out a rate
// limit the service imposes before the export stops (a run again goes
// on where it stopped): an hour covers GitHub's hourly quota.
const exportMaxBlock = time.Hour

// newOutboxExportCmd is "daokit outbox export --to github|gitlab": the
// move of a team's SQLite outbox to the issue tracker it will use.
func newOutboxExportCmd(a *app) *cobra.Command {
	c := a.command("export", "cli.outbox.export.summary", nil)
	c.Long = "cli.outbox.export.long"
	f := c.Flags()
	e := &exportCmd{a: a}
	e.to = f.String("to", "", "cli.outbox.export.flag.to")
	e.repo = f.String("repo", "", "cli.outbox.export.flag.repo")
	e.api = f.String("api-url", "", "cli.outbox.export.flag.api_url")
	e.from = f.String("from", "", "cli.outbox.export.flag.from")
	e.dry = f.Bool("dry-run", false, "cli.outbox.export.flag.dry_run")
	e.root = rootFlag(f)
	e.dir = f.String("outbox", "", "cli.outbox.flag.outbox")
	c.RunE = func(c *cobra.Command, _ []string) error { return e.run(c) }
	return c
}

// exportCmd is one run of daokit outbox export.
type exportCmd struct {
	a                         *app
	to, repo, api, from, root *string
	dir                       *string
	dry                       *bool
}

func (e *exportCmd) run(c *cobra.Command) error {
	a := e.a
	if *e.to != team.BackendGitHub && *e.to != team.BackendGitLab {
		return a.usage(c, a.t("cli.outbox.export.error.to", "Value", *e.to))
	}
	env, err := a.loadTeam(*e.root, *e.dir)
	if err != nil {
		return err
	}
	wf := env.wf
	src := *e.from
	if src == "" {
		src = wf.DBPath()
		if wf.Outbox.Backend != team.BackendSQLite {
			src = filepath.Join(wf.Dir, team.DefaultDBPath)
		}
	}
	var token string
	if *e.to == team.BackendGitLab {
		token = outbox.GitLabTokenFrom(a.getenv)
	} else {
		token = outbox.TokenFrom(a.getenv)
	}
	cfg := outbox.ForgeConfig{Repo: *e.repo, APIURL: *e.api, Token: token, MaxBlock: exportMaxBlock}
	switch {
	case *e.repo != "":
		cfg.Mirror = filepath.Join(wf.Dir, ".daokit", *e.to, filepath.FromSlash(*e.repo)+".db")
	case wf.Outbox.Backend == *e.to:
		cfg = pick.ForgeConfig(wf, token, outbox.Options{})
		cfg.MaxBlock = exportMaxBlock
		if *e.api != "" {
			cfg.APIURL = *e.api
		}
	default:
		return a.usage(c, a.t("cli.outbox.export.error.no_repo", "Service", serviceName(*e.to)))
	}
	if same(src, cfg.Mirror) {
		return failf("E_EXPORT_SAME", a.t("cli.outbox.export.error.same", "Path", src))
	}
	s, err := outbox.OpenSQLite(src, outbox.Options{ReadOnly: true})
	if err != nil {
		return a.outboxFailure(err)
	}
	defer s.Close()
	var g *outbox.Forge
	if *e.to == team.BackendGitLab {
		g, err = outbox.OpenGitLab(a.ctx, cfg)
	} else {
		g, err = outbox.OpenGitHub(a.ctx, cfg)
	}
	if err != nil {
		return a.outboxFailure(err)
	}
	defer g.Close()
	where := serviceName(*e.to) + " " + cfg.Repo
	rep, err := outbox.Export(a.ctx, s, g, outbox.ExportOptions{
		DryRun:   *e.dry,
		Lang:     a.loc.Lang(),
		Byline:   e.byline,
		Progress: e.progress,
		RateWait: func(w outbox.RateWait) {
			if !w.Until.IsZero() {
				a.println(a.t("cli.outbox.export.waiting", "Until", w.Until.UTC().Format(time.TimeOnly)+" UTC", "Service", serviceName(*e.to)))
			}
		},
	})
	if errors.Is(err, context.Canceled) {
		return err // Ctrl-C: E_INTERRUPTED; a run again goes on
	}
	if err != nil {
		ge := outbox.AsGitHubError(err, cfg.Repo, cfg.APIURL)
		if *e.to == team.BackendGitLab {
			ge = outbox.AsGitLabError(err, cfg.Repo, cfg.APIURL)
		}
		detail := err.Error()
		if ge != nil {
			detail = a.githubProblem(ge)
		}
		return failf("E_EXPORT_STOPPED", a.t("cli.outbox.export.error.stopped", "Where", where, "Detail", detail))
	}
	id := "cli.outbox.export.done"
	if *e.dry {
		id = "cli.outbox.export.dry_done"
	}
	a.println(a.t(id, "Issues", rep.Issues, "Comments", rep.Comments, "Had", rep.Had, "Where", where))
	if len(rep.Unfinished) > 0 {
		var moved []string
		for _, n := range rep.Unfinished {
			moved = append(moved, fmt.Sprintf("#%d → #%d", n, rep.Numbers[n]))
		}
		a.println(a.t("cli.outbox.export.unfinished", "Issues", strings.Join(moved, ", "), "Dir", filepath.Join(wf.Dir, "team-worktrees")))
	}
	if !*e.dry && (wf.Outbox.Backend != *e.to || wf.Outbox.Repo != cfg.Repo) {
		a.println(a.t("cli.outbox.export.next", "Backend", *e.to, "Repo", cfg.Repo))
	}
	return nil
}

// byline heads every body brought over: the service shows the token's
// user as the author of everything the export posts.
func (e *exportCmd) byline(lang, author string, at time.Time) string {
	loc := e.a.loc
	if l, err := i18n.New(lang); err == nil {
		loc = l
	}
	return loc.T("cli.outbox.export.byline", "Author", author, "Time", at.UTC().Format("2006-01-02 15:04")+" UTC")
}

func (e *exportCmd) progress(s outbox.ExportStep, n, total int) {
	a := e.a
	verb := string(s.Kind)
	switch {
	case s.Had:
		verb += "_had"
	case *e.dry:
		verb += "_plan"
	}
	a.println(a.t("cli.outbox.export.step."+verb, "N", n, "Total", total, "From", s.From, "Issue", s.Issue, "To", s.To, "Title", s.Title))
}

// same reports whether two paths name one file.
func same(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return errors.Join(err1, err2) == nil && x == y
}

// serviceName is the name people know the service by.
func serviceName(backend string) string {
	return outbox.RateWait{Service: backend}.ServiceName()
}
