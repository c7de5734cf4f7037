package lead

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/internal/fakerest"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// prForge is a forge stand-in that knows the branches of a bare
// repository (a change request of a branch never pushed is refused),
// as the delivery test drives it.
type prForge struct {
	forgeFake
	// postPath ends the path of the request that opens a change request.
	postPath string
	// changeRequests are the ones opened: head branch and URL.
	changeRequests func() [][2]string
	body           func(i int) string
}

func githubPRForge(t *testing.T, bare string) prForge {
	f := fakegithub.New(fakegithub.Options{Branch: func(_, b string) (string, bool) { return gittest.BranchAt(bare, b) }},
		map[string]fakegithub.Token{leadToken: {Login: "daokit-bot", Push: true}}, "acme/app")
	t.Cleanup(f.Close)
	return prForge{forgeFake: githubForge(f), postPath: "/pulls",
		changeRequests: func() [][2]string {
			var out [][2]string
			for _, p := range f.Pulls("acme/app") {
				out = append(out, [2]string{p.Head, p.URL})
			}
			return out
		},
		body: func(i int) string { return f.Pulls("acme/app")[i].Body }}
}

func gitlabPRForge(t *testing.T, bare string) prForge {
	const p = "acme/platform/app"
	f := fakegitlab.New(fakegitlab.Options{Branch: func(_, b string) (string, bool) { return gittest.BranchAt(bare, b) }},
		map[string]fakegitlab.Token{leadGitLabToken: {Username: "daokit-bot", Level: 30}}, nil, p)
	t.Cleanup(f.Close)
	return prForge{forgeFake: gitlabForge(f), postPath: "/merge_requests",
		changeRequests: func() [][2]string {
			var out [][2]string
			for _, m := range f.MergeRequests(p) {
				out = append(out, [2]string{m.Source, m.WebURL})
			}
			return out
		},
		body: func(i int) string { return f.MergeRequests(p)[i].Body }}
}

// TestAcceptedIssueBecomesOnePullRequestAcrossKills, on GitHub and
// GitLab: role be (deliver = "pr") works issue #1 in its worktree and
// closes it; the integrator's Lead (accepts = true) stamps
// decision:accepted. be's Lead pushes the issue's branch to origin and
// opens its change request; it is SIGKILLed while the forge takes the
// request that opens it, and its successor while the forge takes the
// Changes: comment. The third Lead finds both: one change request of
// the branch, its URL posted once as the issue's Changes: evidence,
// its body naming the issue and who accepted it; the token never
// reached a Worker.
func TestAcceptedIssueBecomesOnePullRequestAcrossKills(t *testing.T) {
	for name, mk := range map[string]func(*testing.T, string) prForge{"github": githubPRForge, "gitlab": gitlabPRForge} {
		t.Run(name, func(t *testing.T) {
			repo := gittest.NewRepo(t, map[string]string{"README": "app\n"})
			bare := gittest.NewOrigin(t, repo)
			ff := mk(t, bare)
			ff.setToken(t)
			dir := t.TempDir()
			envs := filepath.Join(t.TempDir(), "env")
			wfText := fmt.Sprintf(`[outbox]
backend = %q
repo = %q
api_url = %q
[roles.be]
role_repo = %q
deliver = "pr"
worker = ["sh", "-c", "env > %s-$0; echo feature > feature.txt; echo 'Tests: feature ok'", "{issue}"]
[roles.integrator]
accepts = true
`, ff.backend, ff.repo, ff.url, repo, envs)
			if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(wfText), 0o644); err != nil {
				t.Fatal(err)
			}
			wf, err := team.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			ff.open("Login API", "POST /login.", "to:be")

			var mu sync.Mutex
			var cmd *exec.Cmd
			start := func() {
				mu.Lock()
				defer mu.Unlock()
				cmd = exec.Command(os.Args[0], "lead", wf.Dir, "be")
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
			}
			kill := func() {
				mu.Lock()
				defer mu.Unlock()
				cmd.Process.Kill()
				cmd.Wait()
			}
			t.Cleanup(func() {
				mu.Lock()
				defer mu.Unlock()
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
			})
			held := func(what string, hold, holding chan struct{}) {
				t.Helper()
				select {
				case <-holding:
				case <-time.After(40 * time.Second):
					t.Fatalf("the Lead never sent %s", what)
				}
				kill()
				close(hold)
			}
			start()
			waitUntil(t, "#1 closed by its Worker", 30*time.Second, func() bool { return ff.closed(1) })

			hold1, holding1 := make(chan struct{}), make(chan struct{})
			ff.inject(fakerest.Fault{Method: "POST", PathSuffix: ff.postPath, Hold: hold1, Holding: holding1})
			ob, err := pick.Open(context.Background(), wf, pick.Token(wf, os.Getenv), outbox.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ob.Close()
			if _, err := ob.Apply(context.Background(), outbox.Change{Actor: "lead:integrator",
				Ops: []outbox.Op{{Kind: outbox.OpLabel, Issue: 1, Labels: []string{roster.LabelAccepted}}}}); err != nil {
				t.Fatal(err)
			}
			held("the request that opens the change request", hold1, holding1)
			waitUntil(t, "the held change request opened", 10*time.Second, func() bool { return len(ff.changeRequests()) == 1 })

			hold2, holding2 := make(chan struct{}), make(chan struct{})
			ff.inject(fakerest.Fault{Method: "POST", PathSuffix: ff.commentPath, Hold: hold2, Holding: holding2})
			start()
			held("the Changes: comment", hold2, holding2)
			crs := ff.changeRequests()
			url := crs[0][1]
			waitUntil(t, "the held comment posted", 10*time.Second, func() bool { return ff.count(1, "Changes: "+url) == 1 })

			// The third Lead replays the stamp; a later issue it claims
			// shows it got past it.
			ff.open("Logout API", "POST /logout.", "to:be")
			next := int64(2)
			if name == "github" {
				next = 3 // GitHub numbers pull requests and issues together
			}
			start()
			waitUntil(t, "the later issue claimed", 40*time.Second, func() bool { return ff.count(next, "claims #") == 1 })

			if crs = ff.changeRequests(); len(crs) != 1 || crs[0][0] != roster.WorktreeBranch("be", 1) {
				t.Fatalf("change requests %v, want one of %s", crs, roster.WorktreeBranch("be", 1))
			}
			posts := 0
			for _, r := range ff.requests() {
				if r.Method == "POST" && strings.HasSuffix(r.Path, ff.postPath) {
					posts++
				}
				if strings.Contains(r.Body+r.Query, ff.token) {
					t.Fatal("the token was sent in a body or query")
				}
			}
			if posts != 1 {
				t.Errorf("%d requests opened a change request, want 1", posts)
			}
			if n := ff.count(1, "Changes: "+url); n != 1 {
				t.Errorf("the URL was posted %d times: %q", n, ff.comments(1))
			}
			if got := gittest.Git(t, bare, "show", roster.WorktreeBranch("be", 1)+":feature.txt"); got != "feature" {
				t.Errorf("the pushed branch holds feature.txt = %q", got)
			}
			body := ff.body(0)
			for _, want := range []string{"Login API", "POST /login.", "lead:integrator", "Tests: feature ok"} {
				if !strings.Contains(body, want) {
					t.Errorf("the change request's body lacks %q:\n%s", want, body)
				}
			}
			if gittest.Git(t, bare, "rev-parse", "main") != gittest.Git(t, repo, "rev-parse", "main") {
				t.Error("main moved on origin")
			}
			data, err := os.ReadFile(envs + "-1")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), ff.token) {
				t.Error("the Worker had the token")
			}
		})
	}
}

// A stamp by a Lead whose role may not accept delivers nothing; an
// accepting Lead's stamp whose push is refused is said on the issue
// once, without the token (here written into the remote's URL, which
// git's error shows), and no pull request is asked for.
func TestRefusedDeliveryIsSaidWithoutTheToken(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README": "app\n"})
	gittest.Git(t, repo, "remote", "add", "origin", "https://x-access-token:"+leadToken+"@127.0.0.1:9/acme/app.git")
	ff := githubPRForge(t, t.TempDir())
	ff.setToken(t)
	dir := t.TempDir()
	wfText := fmt.Sprintf(`[outbox]
backend = "github"
repo = "acme/app"
api_url = %q
[roles.be]
role_repo = %q
deliver = "pr"
worker = ["sh", "-c", "echo feature > feature.txt; echo 'Tests: ok'"]
[roles.qa]
[roles.integrator]
accepts = true
`, ff.url, repo)
	if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(wfText), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := team.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := pick.Open(context.Background(), wf, pick.Token(wf, os.Getenv), outbox.Options{WakeInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ob.Close() })
	l, err := New(context.Background(), Options{Role: "be", Workflow: wf, HardCap: 1, Backend: ob, StatusDir: roster.StatusDir(wf)})
	if err != nil {
		t.Fatal(err)
	}
	ff.open("Login API", "POST /login.", "to:be")
	runLead(t, l)
	waitUntil(t, "#1 closed", 30*time.Second, func() bool { return ff.closed(1) })
	stamp := func(actor string, kind outbox.OpKind) {
		if _, err := ob.Apply(context.Background(), outbox.Change{Actor: actor,
			Ops: []outbox.Op{{Kind: kind, Issue: 1, Labels: []string{roster.LabelAccepted}}}}); err != nil {
			t.Fatal(err)
		}
	}
	stamp("lead:qa", outbox.OpLabel)
	stamp("lead:qa", outbox.OpUnlabel)
	stamp("lead:integrator", outbox.OpLabel)
	waitUntil(t, "the refusal on #1", 30*time.Second, func() bool { return ff.count(1, "could not deliver #1 as a pull request") > 0 })
	ff.open("Logout API", "POST /logout.", "to:be")
	waitUntil(t, "the later issue claimed", 30*time.Second, func() bool { return ff.count(2, "claims #2") == 1 })
	if n := ff.count(1, "could not deliver"); n != 1 {
		t.Errorf("%d refusals posted, want 1 (the qa Lead's stamp counts for nothing): %q", n, ff.comments(1))
	}
	for _, c := range ff.comments(1) {
		if strings.Contains(c, leadToken) {
			t.Errorf("a comment holds the token: %q", c)
		}
		if strings.Contains(c, "could not deliver") && !strings.Contains(c, "push daokit-team/be/1 to origin") {
			t.Errorf("the refusal does not say what failed: %q", c)
		}
	}
	for _, r := range ff.requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/pulls") {
			t.Error("a pull request was asked for although the push failed")
		}
	}
}

// redact hides the token and a URL's credentials, which an older git
// prints in a push's error.
func TestRedactHidesTheToken(t *testing.T) {
	err := fmt.Errorf("fatal: unable to access 'https://x-access-token:%s@github.com/acme/app.git/': 403 (token %s)", leadToken, leadToken)
	got := redact(err, leadToken)
	if strings.Contains(got, leadToken) || !strings.Contains(got, "https://***@github.com/acme/app.git/") {
		t.Fatalf("%q", got)
	}
}
