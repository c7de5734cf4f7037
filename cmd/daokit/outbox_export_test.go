package main

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/internal/fakerest"
	"github.com/daokit/daokit/outbox"
)

// exportForge is a stand-in as the export tests drive and read it.
type exportForge struct {
	backend, repo, url, token, env string
	// person opens an issue on the service before the export, so that
	// the numbers there differ from the outbox's.
	person func()
	// issue is issue n; labels has its assignees too, as "@login".
	issue    func(n int64) (labels []string, state, body string)
	comments func(n int64) []string
	requests func() []fakerest.Request
	inject   func(fakerest.Fault)
}

func githubExportForge(t *testing.T) exportForge {
	f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{cliToken: {Login: "bot", Push: true}}, "acme/app")
	t.Cleanup(f.Close)
	return exportForge{backend: "github", repo: "acme/app", url: f.URL, token: cliToken, env: "GITHUB_TOKEN",
		person: func() { f.OpenIssue("acme/app", "carol", "filed on GitHub", "before the move") },
		issue: func(n int64) ([]string, string, string) {
			ls, as, st, b := f.Issue("acme/app", n)
			return withLogins(ls, as), st, b
		},
		comments: func(n int64) []string { return f.Comments("acme/app", n) }, requests: f.Requests, inject: f.Inject}
}

func withLogins(labels, assignees []string) []string {
	for _, a := range assignees {
		labels = append(labels, "@"+a)
	}
	return labels
}

func gitlabExportForge(t *testing.T) exportForge {
	const p = "acme/platform/app"
	f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{cliGitLabToken: {Username: "bot", Level: 30}}, nil, p)
	t.Cleanup(f.Close)
	return exportForge{backend: "gitlab", repo: p, url: f.URL, token: cliGitLabToken, env: "GITLAB_TOKEN",
		person: func() { f.OpenIssue(p, "carol", "filed on GitLab", "before the move") },
		issue: func(n int64) ([]string, string, string) {
			ls, as, st, b := f.Issue(p, n)
			return withLogins(ls, as), st, b
		},
		comments: func(n int64) []string { return f.Notes(p, n) }, requests: f.Requests, inject: f.Inject}
}

// seedOutbox fills the team's SQLite outbox (team/.daokit/outbox.db of
// root) as a finished team leaves it: #1 names #2 before #2 exists,
// #2 is a sub-issue of #1, both claimed by lead:backend, whose triggers
// are recorded; #2 closed by the Lead.
func seedOutbox(t *testing.T, root string) string {
	t.Helper()
	path := filepath.Join(root, "team", ".daokit", "outbox.db")
	if _, err := outbox.Init(path, false); err != nil {
		t.Fatal(err)
	}
	s, err := outbox.OpenSQLite(path, outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	apply := func(c outbox.Change) outbox.Result {
		t.Helper()
		r, err := s.Apply(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	apply(outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "Login API", Body: "POST /login, after #2.\n\nDependsOn: #2", Labels: []string{"to:backend"}}}})
	apply(outbox.Change{Actor: "lead:backend", Reader: "lead:backend", UpTo: 1, Trigger: "claim:1", Ops: []outbox.Op{
		{Kind: outbox.OpAssign, Issue: 1, Assignee: "lead:backend"},
		{Kind: outbox.OpLabel, Issue: 1, Labels: []string{"state:queued"}},
		{Kind: outbox.OpOpen, Title: "Session store", Body: "Part of #1.", Labels: []string{"to:backend", "parent:1"}},
		{Kind: outbox.OpComment, Issue: 1, Body: "lead:backend claims #1.\n\nState: state:queued"}}})
	c := apply(outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: 2, Body: "@backend see #1 too\n\nTrigger: T-ann"}}}).Comments[0]
	apply(outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: 1, Body: "is #2 done?"}}})
	apply(outbox.Change{Actor: "lead:backend", Reader: "lead:backend", UpTo: 5, Trigger: "T-ann", Ops: []outbox.Op{
		{Kind: outbox.OpComment, Issue: 2, Body: "lead:backend read comment " + itoa(c) + ".\n\nTrigger: T-ann\nIssueRef: #2\nBlockedBy: 1"}}})
	apply(outbox.Change{Actor: "lead:backend", Reader: "lead:backend", UpTo: 6, Trigger: "comment:" + itoa(c+1)})
	apply(outbox.Change{Actor: "lead:backend", Ops: []outbox.Op{{Kind: outbox.OpAssign, Issue: 2, Assignee: "dave"}, {Kind: outbox.OpClose, Issue: 2}}})
	return path
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// writes are the requests that change something on the service.
func writes(rs []fakerest.Request) int {
	n := 0
	for _, r := range rs {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// exportRoot is a ledger root whose workflow.toml names the stand-in,
// and whose SQLite outbox (team/.daokit/outbox.db) is seeded.
func exportRoot(t *testing.T, ff exportForge) string {
	root := forgeRoot(t, ff.backend, ff.repo, ff.url)
	seedOutbox(t, root)
	ff.person()
	return root
}

// daokit outbox export brings every issue and comment, in order, with
// the new numbers in their references, the authors in a byline and
// the state; --dry-run sends nothing, a rerun sends nothing, and the
// Lead's answered triggers are the mirror's under the new numbers.
func TestOutboxExport(t *testing.T) {
	for _, mk := range []func(*testing.T) exportForge{githubExportForge, gitlabExportForge} {
		ff := mk(t)
		t.Run(ff.backend, func(t *testing.T) {
			root := exportRoot(t, ff)
			env := map[string]string{ff.env: ff.token}
			dry := runCLI(t, env, "outbox", "export", "--to", ff.backend, "--root", root, "--dry-run")
			if dry.code != 0 || !strings.Contains(dry.stdout, "would export 2 issues and 4 comments") || !strings.Contains(dry.stdout, "would open issue #1 Login API") {
				t.Fatalf("dry run: %d %q %q", dry.code, dry.stdout, dry.stderr)
			}
			if n := writes(ff.requests()); n != 0 {
				t.Fatalf("the dry run sent %d writes", n)
			}
			r := runCLI(t, env, "outbox", "export", "--to", ff.backend, "--root", root)
			if r.code != 0 || !strings.Contains(r.stdout, "exported 2 issues and 4 comments") || !strings.Contains(r.stdout, "issue #1 → #2 Login API") {
				t.Fatalf("export: %d %q %q", r.code, r.stdout, r.stderr)
			}
			// #1 is open in lead:backend's hands (state:queued) and is #2 now.
			if !strings.Contains(r.stdout, "open issues in a Lead's hands got new numbers (#1 → #2)") {
				t.Fatalf("no word of the renumbered work: %q", r.stdout)
			}
			if strings.Contains(r.stdout+r.stderr, ff.token) {
				t.Fatal("the token was printed")
			}
			// #1 → #2 and #2 → #3: the person's issue came first.
			labels, state, body := ff.issue(2)
			if state == "closed" || !strings.HasPrefix(body, "*ann wrote this on ") || !strings.Contains(body, "POST /login, after #3.") ||
				!strings.Contains(body, "DependsOn: #3") || !slices.Contains(labels, "assignee:lead:backend") || !slices.Contains(labels, "state:queued") {
				t.Fatalf("#2 on %s: %v %s %q", ff.backend, labels, state, body)
			}
			labels, state, body = ff.issue(3)
			// dave is a GitHub login (the stand-in takes any), and no
			// user of the GitLab project: there his name is a label.
			dave := map[string]string{"github": "@dave", "gitlab": "assignee:dave"}[ff.backend]
			if state != "closed" || !slices.Contains(labels, "parent:2") || !strings.Contains(body, "Part of #2.") || !slices.Contains(labels, dave) {
				t.Fatalf("#3 on %s: %v %s %q", ff.backend, labels, state, body)
			}
			cs := ff.comments(3)
			var texts []string
			for _, c := range cs {
				if !strings.Contains(c, "(moved from the daokit SQLite outbox)*") {
					continue // GitLab's system notes
				}
				texts = append(texts, c)
			}
			if len(texts) != 2 || !strings.HasPrefix(texts[0], "*ann wrote") || !strings.Contains(texts[0], "@backend see #2 too") ||
				!strings.HasPrefix(texts[1], "*lead:backend wrote") || !strings.Contains(texts[1], "IssueRef: #3") || !strings.Contains(texts[1], "BlockedBy: 2") {
				t.Fatalf("#3's comments on %s: %q", ff.backend, cs)
			}
			before := len(ff.requests())
			again := runCLI(t, env, "outbox", "export", "--to", ff.backend, "--root", root, "--lang", "zh-CN")
			if again.code != 0 || !strings.Contains(again.stdout, "已迁移 0 个议题和 0 条评论") || writes(ff.requests()[before:]) != 0 {
				t.Fatalf("rerun: %d %q %q, %d writes", again.code, again.stdout, again.stderr, writes(ff.requests()[before:]))
			}
			mirror, err := outbox.OpenSQLite(filepath.Join(root, "team", ".daokit", ff.backend, filepath.FromSlash(ff.repo)+".db"), outbox.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer mirror.Close()
			if n, _ := mirror.Triggers(context.Background(), "lead:backend"); n != 3 {
				t.Fatalf("the Lead's triggers in the mirror: %d, want claim, T-ann and the comment's", n)
			}
			is, err := mirror.Issue(context.Background(), 2)
			if err != nil || is.Author != "ann" || is.Assignee != "lead:backend" {
				t.Fatalf("mirror #2: %+v %v", is, err)
			}
		})
	}
}

// The errors say what is wrong in both languages: a bad --to, no
// repository to go to, a missing token.
func TestOutboxExportErrors(t *testing.T) {
	ff := githubExportForge(t)
	root := exportRoot(t, ff)
	// A team whose SQLite outbox was never made.
	sqliteRoot := forgeRoot(t, "sqlite", "", "")
	for _, c := range []struct {
		name   string
		env    map[string]string
		args   []string
		en, zh string
	}{
		{"bad --to", nil, []string{"--to", "jira", "--root", root}, "--to must be github or gitlab", "--to 必须是 github 或 gitlab"},
		{"no repo", nil, []string{"--to", "gitlab", "--root", root}, "no GitLab repository: give --repo", "没有 GitLab 仓库"},
		{"no token", nil, []string{"--to", "github", "--root", root}, "no GitHub token", "没有 GitHub 令牌"},
		{"no outbox", map[string]string{"GITHUB_TOKEN": cliToken}, []string{"--to", "github", "--repo", "acme/app", "--api-url", ff.url, "--root", sqliteRoot}, "E_OUTBOX_MISSING", "E_OUTBOX_MISSING"},
	} {
		for _, lang := range []string{"en", "zh-CN"} {
			r := runCLI(t, c.env, append([]string{"outbox", "export", "--lang", lang}, c.args...)...)
			want := c.en
			if lang == "zh-CN" {
				want = c.zh
			}
			if r.code == 0 || !strings.Contains(r.stderr, want) {
				t.Errorf("%s (%s): %d %q", c.name, lang, r.code, r.stderr)
			}
		}
	}
	if writes(ff.requests()) != 0 {
		t.Fatal("a refused export wrote")
	}
	h := runCLI(t, nil, "outbox", "export", "--help")
	for _, want := range []string{"--dry-run", "--to", "BlockedBy, DependsOn", "Safe to stop and run again"} {
		if !strings.Contains(h.stdout, want) {
			t.Fatalf("--help lacks %q:\n%s", want, h.stdout)
		}
	}
}

// A rate limit the service imposes mid-export (429, Retry-After) is
// waited out and shown, and the export goes on: every comment once.
func TestOutboxExportWaitsOutRateLimits(t *testing.T) {
	for _, mk := range []func(*testing.T) exportForge{githubExportForge, gitlabExportForge} {
		ff := mk(t)
		t.Run(ff.backend, func(t *testing.T) {
			root := exportRoot(t, ff)
			ff.inject(fakerest.Fault{Method: "POST", PathSuffix: map[string]string{"github": "/comments", "gitlab": "/notes"}[ff.backend],
				Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}, Body: `{"message":"slow down"}`})
			r := runCLI(t, map[string]string{ff.env: ff.token}, "outbox", "export", "--to", ff.backend, "--root", root)
			if r.code != 0 || !strings.Contains(r.stdout, "asks to wait (rate limit): going on at") || !strings.Contains(r.stdout, "exported 2 issues and 4 comments") {
				t.Fatalf("export: %d %q %q", r.code, r.stdout, r.stderr)
			}
			n := 0
			for _, c := range ff.comments(2) {
				if strings.Contains(c, "is #3 done?") {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("the first comment is there %d times: %q", n, ff.comments(2))
			}
		})
	}
}
