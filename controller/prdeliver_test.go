package controller

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// prToken is the GitHub token of the pull-request tests: it must reach
// GitHub's stand-in and nothing else.
const prToken = "ghp_prdeliverSECRETtoken0123456789"

// prRig is a repository whose origin is a bare repository on disk, and
// the GitHub stand-in that knows the branches the bare repository holds
// (a pull request of a branch never pushed is refused, as on GitHub).
type prRig struct {
	repo, bare string
	gh         *fakegithub.Server
	// envDir collects the agents' environments (outside the ledger root).
	envDir string
}

func newPRRig(t *testing.T) prRig {
	t.Helper()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	bare := gittest.NewOrigin(t, repo)
	gh := fakegithub.New(fakegithub.Options{Branch: func(_, branch string) (string, bool) {
		return gittest.BranchAt(bare, branch)
	}}, map[string]fakegithub.Token{prToken: {Login: "octo", Push: true}}, "octo/hello")
	t.Cleanup(gh.Close)
	// The controller reads the token where a person sets it: in its own
	// environment (so these tests cannot run in parallel).
	t.Setenv("GITHUB_TOKEN", prToken)
	return prRig{repo: repo, bare: bare, gh: gh, envDir: t.TempDir()}
}

// loopConfig is a coder/reviewer loop in worktrees of rig.repo whose
// accepted change becomes a pull request: the reviewer asks for changes
// in iteration 1 and approves in 2. Every agent writes its environment
// into rig.envDir.
func (rig prRig) loopConfig() config.Config {
	cfg := loopConfig("2", 3)
	dump := `env > "$ENV_DIR/$DAOKIT_ROLE-$DAOKIT_ITERATION.env"; `
	for i := range cfg.Lanes {
		l := &cfg.Lanes[i]
		l.Dir, l.Isolation = rig.repo, config.IsolationWorktree
		l.Env = append(l.Env, "ENV_DIR="+rig.envDir)
		if l.Name == "coder" {
			l.Command = []string{"sh", "-c", dump + `cat >/dev/null; echo "iteration $DAOKIT_ITERATION" >> notes.txt`}
			l.Deliver = config.DeliverPR
		} else {
			l.Command = []string{"sh", "-c", dump + reviewerScript}
		}
	}
	cfg.Worktrees.PRRepo, cfg.Worktrees.PRAPIURL = "octo/hello", rig.gh.URL
	return cfg
}

// posts counts the requests that tried to open a pull request.
func (rig prRig) posts() int {
	n := 0
	for _, r := range rig.gh.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/pulls") {
			n++
		}
	}
	return n
}

// lockedBuffer is the controller's log, written by its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAcceptOpensOnePullRequest: a reviewed loop whose coder lane says
// deliver = "pr". /accept commits what the agent left, pushes the
// step's branch to origin (a bare repository) and opens exactly one
// pull request of it on GitHub, whose body holds the task, both
// verdicts with the finding, the judge's decision; the URL is in the
// ledger and the run ends DONE; main is untouched. The token reached
// GitHub and nothing else: not the log, not the ledger root, not an
// agent's environment.
func TestAcceptOpensOnePullRequest(t *testing.T) {
	rig := newPRRig(t)
	root := t.TempDir()
	var logs lockedBuffer
	h := startHarnessWith(t, Options{Root: root, Config: rig.loopConfig(),
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	main := gittest.Git(t, rig.repo, "rev-parse", "main")
	ack := h.forward("handle the empty body")
	pending := h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	passed := h.delivered(ack.TaskID)
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	pulls := rig.gh.Pulls("octo/hello")
	if len(pulls) != 1 || rig.posts() != 1 {
		t.Fatalf("%d pull requests after %d POSTs, want 1: %+v", len(pulls), rig.posts(), pulls)
	}
	pr := pulls[0]
	branch := pending.Payload.String("branch")
	if pr.Head != branch || pr.Base != "main" || pr.User != "octo" {
		t.Errorf("pull request %+v; want head %s, base main", pr, branch)
	}
	if pushed := gittest.Git(t, rig.bare, "rev-parse", "refs/heads/"+branch); pushed != pr.SHA || pushed != passed.Payload.String("tip") {
		t.Errorf("origin holds %s at %s; PR head %s, ACCEPTANCE_PASSED tip %s", branch, pushed, pr.SHA, passed.Payload.String("tip"))
	}
	if got := gittest.Git(t, rig.bare, "show", "refs/heads/"+branch+":notes.txt"); got != "start\niteration 1\niteration 2" {
		t.Errorf("the pushed branch holds notes.txt = %q", got)
	}
	for _, want := range []string{"handle the empty body", "request_changes", "one bug in iteration 1",
		"handler.go:42: empty body not handled", "approve", "tests cover it", workflow.JudgeReviewerApproved, ack.TaskID} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("the pull request's body lacks %q:\n%s", want, pr.Body)
		}
	}
	if !strings.HasPrefix(pr.Title, "daokit: handle the empty body") {
		t.Errorf("title %q", pr.Title)
	}
	opened := h.opFor(ack.TaskID, OpPullRequest)
	if opened.Payload.String("url") != pr.URL || !payloadTrue(opened.Payload, "created") || passed.Payload.String("pull_request") != pr.URL {
		t.Errorf("PULL_REQUEST %v, ACCEPTANCE_PASSED %v; want %s", opened.Payload, passed.Payload, pr.URL)
	}
	if gittest.Git(t, rig.repo, "rev-parse", "main") != main || gittest.Git(t, rig.bare, "rev-parse", "main") != main {
		t.Error("main moved: a pull request delivery merges nothing")
	}
	for _, r := range rig.gh.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+prToken {
			t.Errorf("%s %s without the token", r.Method, r.Path)
		}
	}
	h.stop()
	data, err := ledger.Layout{Root: root}.ReadFile(ledger.PipelineFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ledger.ParsePipelineState(data)
	if err != nil {
		t.Fatal(err)
	}
	if lc := p.RoleLifecycle; lc.Get(KeyPullRequest) != pr.URL || lc.Get(KeyPullRequestHead) != pr.SHA || lc.Get(KeyPullRequestRepo) != "octo/hello" {
		t.Errorf("the pipeline does not name the pull request for status: %v", lc)
	}
	assertNoToken(t, "the controller's log", logs.String())
	for _, dir := range []string{root, rig.envDir} {
		envs := 0
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil // a socket, a file removed meanwhile
			}
			if strings.HasSuffix(path, ".env") {
				envs++
			}
			assertNoToken(t, path, string(data))
			return nil
		})
		if dir == rig.envDir && envs != 4 {
			t.Errorf("%d agent environments recorded, want 4 (coder and reviewer, 2 iterations)", envs)
		}
	}
}

func assertNoToken(t *testing.T, where, text string) {
	t.Helper()
	if strings.Contains(text, prToken) || strings.Contains(text, "GITHUB_TOKEN=") {
		t.Errorf("%s holds the GitHub token", where)
	}
	if strings.Contains(text, glPRToken) || strings.Contains(text, "GITLAB_TOKEN=") {
		t.Errorf("%s holds the GitLab token", where)
	}
}

// TestAcceptAfterACrashOpensNoSecondPullRequest: the controller dies
// after GitHub received the request that opens the pull request and
// before its answer came (GitHub opened it all the same). After the
// restart the change waits for review again, and /accept finds the pull
// request by its branch instead of opening a second.
func TestAcceptAfterACrashOpensNoSecondPullRequest(t *testing.T) {
	rig := newPRRig(t)
	root := t.TempDir()
	cfg := rig.loopConfig()
	hold, holding := make(chan struct{}), make(chan struct{})
	rig.gh.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/pulls", Hold: hold, Holding: holding})
	h := startHarness(t, root, cfg)
	ack := h.forward("survive the crash")
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-holding:
	case <-time.After(20 * time.Second):
		t.Fatal("the pull request was never asked for")
	}
	h.stop()
	close(hold)
	waitUntil(t, "GitHub opens the held pull request", func() bool { return len(rig.gh.Pulls("octo/hello")) == 1 })
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("pull_request") != ""
	}); n != 0 {
		t.Fatal("ACCEPTANCE_PASSED recorded before the pull request's answer came")
	}

	h2 := startHarness(t, root, cfg)
	h2.waitFor("the review again", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == OpReviewPending &&
			count(h2.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }) == 2
	})
	if _, err := h2.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
		t.Fatalf("accept after the restart: %v", err)
	}
	passed := h2.delivered(ack.TaskID)
	if end := h2.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	pulls := rig.gh.Pulls("octo/hello")
	if len(pulls) != 1 || rig.posts() != 1 {
		t.Fatalf("%d pull requests after %d POSTs, want one of each", len(pulls), rig.posts())
	}
	opened := h2.opFor(ack.TaskID, OpPullRequest)
	if payloadTrue(opened.Payload, "created") || opened.Payload.String("url") != pulls[0].URL || passed.Payload.String("pull_request") != pulls[0].URL {
		t.Errorf("PULL_REQUEST %v; want the existing %s found", opened.Payload, pulls[0].URL)
	}
}

// TestPullRequestRefusalsKeepTheChangeWaiting: a push to a remote that
// is not there, then GitHub refusing the pull request, each leave the
// change waiting for review with its reason code and nothing opened;
// the accept after the person fixed the remote opens exactly one pull
// request, of the branch pushed.
func TestPullRequestRefusalsKeepTheChangeWaiting(t *testing.T) {
	rig := newPRRig(t)
	gittest.Git(t, rig.repo, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "missing.git"))
	h := startHarness(t, t.TempDir(), rig.loopConfig())
	ack := h.forward("refuse me twice")
	h.opFor(ack.TaskID, OpReviewPending)
	refusals := func() []ledger.Event {
		var out []ledger.Event
		for _, e := range h.events() {
			if e.TaskID == ack.TaskID && op(e) == OpMergeRefused {
				out = append(out, e)
			}
		}
		return out
	}
	accept := func(want int) ledger.Event {
		t.Helper()
		if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
			t.Fatalf("accept: %v", err)
		}
		waitUntil(t, "the refusal", func() bool { return len(refusals()) == want })
		return refusals()[want-1]
	}
	if r := accept(1); r.Payload.String("reason_code") != ReasonPRPushFailed || r.Payload.String("remote") != "origin" {
		t.Errorf("first refusal %v", r.Payload)
	}
	if rig.posts() != 0 {
		t.Error("a pull request was asked for although the push failed")
	}
	gittest.Git(t, rig.repo, "remote", "set-url", "origin", rig.bare)
	rig.gh.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/pulls", Status: 403,
		Body: `{"message":"Resource not accessible by personal access token"}`})
	if r := accept(2); r.Payload.String("reason_code") != ReasonPROpenFailed || !strings.Contains(r.Payload.String("error"), "403") {
		t.Errorf("second refusal %v", r.Payload)
	}
	if len(rig.gh.Pulls("octo/hello")) != 0 {
		t.Fatal("a pull request exists after GitHub refused it")
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatalf("the change no longer waits for review: %v", err)
	}
	h.opFor(ack.TaskID, OpPullRequest)
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if n := len(rig.gh.Pulls("octo/hello")); n != 1 {
		t.Fatalf("%d pull requests, want 1", n)
	}
	for _, e := range h.events() {
		assertNoToken(t, "event "+e.EventType+" "+op(e), e.Payload.String("error"))
	}
}

// delivered waits for the ACCEPTANCE_PASSED of the person's accept
// (steps record their own, with exit-code criteria).
func (h *harness) delivered(taskID string) ledger.Event {
	h.t.Helper()
	return h.waitFor("ACCEPTANCE_PASSED with a pull request", func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("pull_request") != ""
	})
}

// waitUntil polls cond until it holds, failing after a deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling; the condition decides
	}
}

// TestGitHubRemote reads the repository from the remote URLs git takes.
func TestGitHubRemote(t *testing.T) {
	for raw, want := range map[string]string{
		"https://github.com/octo/hello.git":        "github.com octo/hello",
		"https://github.com/octo/hello":            "github.com octo/hello",
		"git@github.com:octo/hello.git":            "github.com octo/hello",
		"ssh://git@ghe.example.com:22/octo/hello":  "ghe.example.com octo/hello",
		"https://user:pw@ghe.example.com/o/r.git/": "ghe.example.com o/r",
		"/srv/git/hello.git":                       "",
		"file:///srv/git/o/r.git":                  "",
		"./o:r":                                    "",
	} {
		host, repo, ok := forgeRemote(raw)
		got := ""
		if ok {
			got = host + " " + repo
		}
		if got != want {
			t.Errorf("forgeRemote(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestTheJudgeGetsNoGitHubToken: the command judge runs code the agent
// wrote (its tests) in the worktree; the controller holds the tokens
// (GitHub's and GitLab's), the judge's environment has neither.
func TestTheJudgeGetsNoGitHubToken(t *testing.T) {
	rig := newPRRig(t)
	cfg := rig.loopConfig()
	cfg.Workflow.Judge = config.JudgeCommand
	cfg.Workflow.JudgeCommand = []string{"sh", "-c", `env > "` + rig.envDir + `/judge.env"`}
	t.Setenv("GITLAB_TOKEN", glPRToken) // a controller may hold both forges' tokens
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("judge me")
	h.opFor(ack.TaskID, OpReviewPending)
	data, err := os.ReadFile(filepath.Join(rig.envDir, "judge.env"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "DAOKIT_TASK_ID="+ack.TaskID) {
		t.Fatalf("not the judge's environment:\n%s", data)
	}
	assertNoToken(t, "the judge's environment", string(data))
}
