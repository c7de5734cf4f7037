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

	"github.com/daokit/daokit/internal/fakerest"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// forgeFake is a REST stand-in (GitHub's or GitLab's) as the team tests
// drive and read it.
type forgeFake struct {
	backend, repo, url, token string
	// tokenEnv are the variables the Leads read the token from.
	tokenEnv []string
	// commentPath ends the path of a comment posted on issue 1.
	commentPath string
	inject      func(fakerest.Fault)
	open        func(title, body, label string)
	// state is the issue's state ("closed" when closed) and labels.
	state    func(n int64) (string, []string)
	comments func(n int64) []string
	requests func() []fakerest.Request
}

func (ff forgeFake) closed(n int64) bool {
	st, _ := ff.state(n)
	return st == "closed"
}

// count is how many comments of issue n contain s.
func (ff forgeFake) count(n int64, s string) int {
	k := 0
	for _, b := range ff.comments(n) {
		if strings.Contains(b, s) {
			k++
		}
	}
	return k
}

func (ff forgeFake) setToken(t *testing.T) {
	for _, e := range ff.tokenEnv {
		t.Setenv(e, ff.token)
	}
}

// forgeProject is an outbox root whose outbox is ff's repository.
func forgeProject(t *testing.T, ff forgeFake) *team.Workflow {
	t.Helper()
	dir := t.TempDir()
	wfText := fmt.Sprintf("[outbox]\nbackend = %q\nrepo = %q\napi_url = %q\n%s", ff.backend, ff.repo, ff.url, twoRoles+"[roles.frontend]\n")
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

// runTeamOnForge runs the example team on ff: three issues filed by a
// person on the service, qa's blocked by backend's and unblocked when
// it closes, all closed with their Worker's evidence; no Worker's
// environment has the token, and the token travels in no body or query.
func runTeamOnForge(t *testing.T, ff forgeFake) {
	wf := forgeProject(t, ff)
	ff.setToken(t)
	ff.open("Login API", "POST /login.\nSim: sleep 300ms", "to:backend")
	ff.open("Login form", "A form.", "to:frontend")
	ff.open("Test login", "End to end.", "to:qa")
	envs := filepath.Join(t.TempDir(), "env")
	for _, role := range []string{"backend", "frontend", "qa"} {
		ob, err := pick.Open(context.Background(), wf, pick.Token(wf, os.Getenv), outbox.Options{WakeInterval: 50 * time.Millisecond})
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
	waitUntil(t, "all three closed on "+ff.backend, 30*time.Second, func() bool {
		return ff.closed(1) && ff.closed(2) && ff.closed(3)
	})
	if ff.count(3, "BlockedBy: #1") == 0 || ff.count(3, "Unblocked") == 0 {
		t.Fatalf("#3 was not blocked then unblocked: %q", ff.comments(3))
	}
	for n := int64(1); n <= 3; n++ {
		if ff.count(n, fmt.Sprintf("IssueRef: #%d", n)) != 1 || ff.count(n, "Changes: commit sim-") != 1 {
			t.Fatalf("#%d evidence: %q", n, ff.comments(n))
		}
		if ff.count(n, "claims #") != 1 {
			t.Fatalf("#%d claimed %d times", n, ff.count(n, "claims #"))
		}
		data, err := os.ReadFile(fmt.Sprintf("%s-%d", envs, n))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), ff.token) {
			t.Fatalf("#%d's Worker had the token", n)
		}
		for _, e := range ff.tokenEnv {
			if strings.Contains(string(data), e+"=") {
				t.Fatalf("#%d's Worker had %s", n, e)
			}
		}
		if !strings.Contains(string(data), outbox.WorkerEnv+"=") {
			t.Fatalf("#%d's environment was not the Worker's", n)
		}
	}
	if _, labels := ff.state(1); !slices.Contains(labels, "assignee:lead:backend") || !slices.Contains(labels, roster.LabelDone) {
		t.Fatalf("#1 labels on %s %v", ff.backend, labels)
	}
	for _, r := range ff.requests() {
		if strings.Contains(r.Body+r.Query, ff.token) {
			t.Fatal("the token was sent in a body or query")
		}
	}
}

// killMidTriggerOnForge: a Lead SIGKILLed while the service is taking
// its claim comment (the service posts it; the Lead never hears)
// answers the trigger once: its successor finds the comment by its
// marker instead of posting again.
func killMidTriggerOnForge(t *testing.T, ff forgeFake) {
	wf := forgeProject(t, ff)
	ff.setToken(t)
	hold, holding := make(chan struct{}), make(chan struct{})
	ff.inject(fakerest.Fault{Method: "POST", PathSuffix: ff.commentPath, Hold: hold, Holding: holding})
	ff.open("Login API", "POST /login.", "to:backend")
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
	waitUntil(t, "the claim comment on "+ff.backend, 10*time.Second, func() bool { return ff.count(1, "claims #1") == 1 })
	start()
	waitUntil(t, "#1 closed on "+ff.backend, 30*time.Second, func() bool { return ff.closed(1) })
	if n := ff.count(1, "claims #1"); n != 1 {
		t.Fatalf("the claim was posted %d times: %q", n, ff.comments(1))
	}
	if n := ff.count(1, "IssueRef: #1"); n != 1 {
		t.Fatalf("evidence posted %d times", n)
	}
	looked := slices.ContainsFunc(ff.requests(), func(r fakerest.Request) bool {
		return r.Method == "GET" && strings.Contains(r.Path, strings.TrimSuffix(ff.commentPath, "/"))
	})
	if !looked {
		t.Fatal("the successor did not look for the comment before posting")
	}
}
