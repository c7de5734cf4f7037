package lead

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

const leadToken = "ghp_leadTOKEN0123456789abcdef"

// githubProject is an outbox root whose outbox is repo acme/app on the
// stand-in.
func githubProject(t *testing.T, f *fakegithub.Server) *team.Workflow {
	t.Helper()
	dir := t.TempDir()
	wfText := fmt.Sprintf("[outbox]\nbackend = \"github\"\nrepo = \"acme/app\"\napi_url = %q\n%s", f.URL, twoRoles+"[roles.frontend]\n")
	if err := os.WriteFile(filepath.Join(dir, team.FileName), []byte(wfText), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := team.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(wf.MemoryPath(), 0o755)
	return wf
}

func newGitHubFake(t *testing.T) *fakegithub.Server {
	f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{leadToken: {Login: "daokit-bot", Push: true}}, "acme/app")
	t.Cleanup(f.Close)
	return f
}

// bodies are the comments of an issue on GitHub that contain s.
func bodies(f *fakegithub.Server, n int64, s string) int {
	k := 0
	for _, b := range f.Comments("acme/app", n) {
		if strings.Contains(b, s) {
			k++
		}
	}
	return k
}

func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// The example team on GitHub: three issues filed by a person on GitHub,
// qa's blocked by backend's and unblocked when it closes, all closed
// with their Worker's evidence; no Worker's environment has the token.
func TestTeamOnGitHub(t *testing.T) {
	f := newGitHubFake(t)
	wf := githubProject(t, f)
	t.Setenv("GITHUB_TOKEN", leadToken)
	t.Setenv("GH_TOKEN", leadToken)
	f.OpenIssue("acme/app", "ann", "Login API", "POST /login.\nSim: sleep 300ms", "to:backend")
	f.OpenIssue("acme/app", "ann", "Login form", "A form.", "to:frontend")
	f.OpenIssue("acme/app", "ann", "Test login", "End to end.", "to:qa")
	envs := filepath.Join(t.TempDir(), "env")
	for _, role := range []string{"backend", "frontend", "qa"} {
		ob, err := OpenOutbox(context.Background(), wf, outbox.TokenFromEnv(), outbox.Options{WakeInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ob.Close() })
		l, err := New(context.Background(), Options{Role: role, Workflow: wf, HardCap: 2, Backend: ob,
			WorkerArgv: []string{os.Args[0], "envworker", envs, PlaceholderIssue}, StatusDir: roster.StatusDir(wf)})
		if err != nil {
			t.Fatal(err)
		}
		runLead(t, l)
	}
	waitUntil(t, "all three closed on GitHub", 30*time.Second, func() bool {
		for n := int64(1); n <= 3; n++ {
			if _, _, state, _ := f.Issue("acme/app", n); state != "closed" {
				return false
			}
		}
		return true
	})
	if bodies(f, 3, "BlockedBy: #1") == 0 || bodies(f, 3, "Unblocked") == 0 {
		t.Fatalf("#3 was not blocked then unblocked: %q", f.Comments("acme/app", 3))
	}
	for n := int64(1); n <= 3; n++ {
		if bodies(f, n, fmt.Sprintf("IssueRef: #%d", n)) != 1 || bodies(f, n, "Changes: commit sim-") != 1 {
			t.Fatalf("#%d evidence: %q", n, f.Comments("acme/app", n))
		}
		if bodies(f, n, "claims #") != 1 {
			t.Fatalf("#%d claimed %d times", n, bodies(f, n, "claims #"))
		}
		data, err := os.ReadFile(fmt.Sprintf("%s-%d", envs, n))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), leadToken) || strings.Contains(string(data), "GITHUB_TOKEN=") || strings.Contains(string(data), "GH_TOKEN=") {
			t.Fatalf("#%d's Worker had the token", n)
		}
		if !strings.Contains(string(data), outbox.WorkerEnv+"=") {
			t.Fatalf("#%d's environment was not the Worker's", n)
		}
	}
	labels, _, _, _ := f.Issue("acme/app", 1)
	if !slices.Contains(labels, "assignee:lead:backend") || !slices.Contains(labels, roster.LabelDone) {
		t.Fatalf("#1 labels on GitHub %v", labels)
	}
	for _, r := range f.Requests() {
		if strings.Contains(r.Body+r.Query, leadToken) {
			t.Fatal("the token was sent in a body or query")
		}
	}
}

// A Lead SIGKILLed while GitHub is taking its claim comment (GitHub
// posts it; the Lead never hears) answers the trigger once: its
// successor finds the comment by its marker instead of posting again.
func TestLeadKilledMidTriggerOnGitHub(t *testing.T) {
	f := newGitHubFake(t)
	wf := githubProject(t, f)
	t.Setenv("GITHUB_TOKEN", leadToken)
	hold, holding := make(chan struct{}), make(chan struct{})
	f.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/issues/1/comments", Hold: hold, Holding: holding})
	f.OpenIssue("acme/app", "ann", "Login API", "POST /login.", "to:backend")
	var mu sync.Mutex
	var cmd *exec.Cmd
	start := func() {
		mu.Lock()
		defer mu.Unlock()
		cmd = exec.Command(os.Args[0], "lead", wf.Dir, "backend")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	start()
	select {
	case <-holding:
	case <-time.After(30 * time.Second):
		t.Fatal("the Lead never posted its claim")
	}
	mu.Lock()
	cmd.Process.Kill()
	cmd.Wait()
	mu.Unlock()
	close(hold)
	waitUntil(t, "the claim comment on GitHub", 10*time.Second, func() bool { return bodies(f, 1, "claims #1") == 1 })
	start()
	waitUntil(t, "#1 closed on GitHub", 30*time.Second, func() bool {
		_, _, state, _ := f.Issue("acme/app", 1)
		return state == "closed"
	})
	if n := bodies(f, 1, "claims #1"); n != 1 {
		t.Fatalf("the claim was posted %d times: %q", n, f.Comments("acme/app", 1))
	}
	if n := bodies(f, 1, "IssueRef: #1"); n != 1 {
		t.Fatalf("evidence posted %d times", n)
	}
	looked := slices.ContainsFunc(f.Requests(), func(r fakegithub.Request) bool {
		return r.Method == "GET" && strings.HasSuffix(r.Path, "/issues/1/comments")
	})
	if !looked {
		t.Fatal("the successor did not look for the comment before posting")
	}
}

// A Lead that stops on a GitHub set-up problem says which, in the
// person's words (status and the roles pane show roster.Exit.Text).
func TestExitNamesTheGitHubProblem(t *testing.T) {
	f := newGitHubFake(t)
	wf := githubProject(t, f)
	_, err := OpenOutbox(context.Background(), wf, "wrong-token", outbox.Options{})
	e := roster.ExitOf("backend", 1, err)
	if e.Reason != outbox.GitHubBadToken || e.Repo != "acme/app" || e.API != f.URL {
		t.Fatalf("%+v", e)
	}
	text := e.Text(func(id string, kv ...any) string { return fmt.Sprint(append([]any{id}, kv...)...) })
	if !strings.HasPrefix(text, "team.github.GITHUB_BAD_TOKEN") || strings.Contains(text, "wrong-token") {
		t.Fatalf("%q", text)
	}
	if !slices.Contains(roster.ExitReasons(), e.Reason) {
		t.Fatal("not a listed exit reason")
	}
}
