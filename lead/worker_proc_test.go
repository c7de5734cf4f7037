package lead

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// A Worker's stdout and stderr are the attempt's logs, which it writes
// itself, kept under the team's state with the result the Lead recorded
// before posting it.
func TestWorkerStderrIsInItsLog(t *testing.T) {
	p := newProject(t, `[roles.be]
worker = ["sh", "-c", "echo 'compiler says: no' >&2; echo working; echo 'Tests: 2 passed'"]
`, 50*time.Millisecond)
	l := p.lead("be", 1, nil)
	runLead(t, l)
	id := p.file("build it", "", "to:be")
	p.waitFor("the issue closed", 20*time.Second, func() bool { return p.issue(id).Closed })

	dir := roster.AttemptDir(roster.StatusDir(p.wf), "be", id, 1)
	errLog, err := os.ReadFile(filepath.Join(dir, "stderr.log"))
	if err != nil || !strings.Contains(string(errLog), "compiler says: no") {
		t.Fatalf("stderr.log = %q, %v", errLog, err)
	}
	outLog, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
	if !strings.Contains(string(outLog), "working\nTests: 2 passed\n") {
		t.Errorf("stdout.log = %q", outLog)
	}
	rec, err := readAttemptResult(dir)
	if err != nil || rec.ExitCode != 0 || rec.Evidence[outbox.FieldTests] != "2 passed" || rec.Attempt != 1 {
		t.Errorf("result.json = %+v, %v", rec, err)
	}
	f := fieldsOf(p.comments(id), l.actor)
	if last := f[len(f)-1]; last[outbox.FieldTests] != "2 passed" || last[outbox.FieldState] != roster.LabelDone {
		t.Errorf("posted evidence %v", last)
	}
	if !hasText(p.comments(id), fmt.Sprintf("daokit logs --role be --issue %d --attempt 1", id)) {
		t.Errorf("the result does not say where its logs are: %v", p.comments(id))
	}
}

// A Worker silent past warning_after is WARNING in the Lead's Status,
// past stale_after STALE: stopped and started again (a new attempt, its
// own logs) within [restart]'s bound, after which its issue fails.
func TestHungWorkerIsWarnedThenStaleAndRestarted(t *testing.T) {
	p := newProject(t, "[roles.be]\n", 50*time.Millisecond)
	l := p.lead("be", 1, func(o *Options) {
		o.StatusDir = roster.StatusDir(p.wf)
		o.Liveness = Liveness{CheckInterval: 20 * time.Millisecond, WarningAfter: 300 * time.Millisecond, StaleAfter: 1200 * time.Millisecond,
			Restart: config.Restart{MaxRestarts: 1, Window: config.Duration(time.Minute),
				BackoffBase: config.Duration(time.Second), BackoffCap: config.Duration(time.Second)}}
	})
	runLead(t, l)
	id := p.file("hang", "Sim: hang 600s", "to:be")

	health := func(attempt int) string {
		st, err := roster.ReadStatus(roster.StatusDir(p.wf), "be")
		if err != nil {
			return ""
		}
		for _, w := range st.Workers {
			if w.Issue == id && w.Attempt == attempt {
				return w.Health
			}
		}
		return ""
	}
	// Attempt 1 stays STALE in the Status while it waits for its restart
	// (the backoff); attempt 2's STALE ends the issue at once.
	p.waitFor("attempt 1 WARNING", 20*time.Second, func() bool { return health(1) == roster.HealthWarning })
	p.waitFor("attempt 1 STALE", 20*time.Second, func() bool { return health(1) == roster.HealthStale })
	p.waitFor("attempt 2 running", 20*time.Second, func() bool { return health(2) == healthActive || health(2) == roster.HealthWarning })
	p.waitFor("the issue failed", 20*time.Second, func() bool { return p.issue(id).HasLabel(roster.LabelFailed) })
	if !hasText(p.comments(id), "(STALE) 2 times; the restart limit") {
		t.Errorf("the failure does not name the restart limit: %v", p.comments(id))
	}
	for a := 1; a <= 2; a++ {
		dir := roster.AttemptDir(roster.StatusDir(p.wf), "be", id, a)
		if _, err := readAttemptResult(dir); err == nil {
			t.Errorf("attempt %d, stopped as STALE, has a result record", a)
		}
		if out, _ := os.ReadFile(filepath.Join(dir, "stdout.log")); !strings.Contains(string(out), "working on") {
			t.Errorf("attempt %d's log = %q", a, out)
		}
	}
	if atts, _ := roster.Attempts(roster.StatusDir(p.wf), "be", id); len(atts) != 2 {
		t.Errorf("attempts %v, want 2 (one restart allowed)", atts)
	}
}

// Two Workers of one role run at once, each in a git worktree of the
// role's repository of its own.
func TestTwoWorkersOfOneRoleWorkInTwoWorktrees(t *testing.T) {
	p := newProject(t, "[roles.be]\nrole_repo = \"repo\"\n", 50*time.Millisecond)
	repo := filepath.Join(p.dir, "repo")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	os.MkdirAll(repo, 0o755)
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "README"), []byte("hi\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "first")

	l := p.lead("be", 2, nil)
	runLead(t, l)
	a := p.file("one", "Sim: write made-by-worker.txt\nSim: pwd\nSim: sleep 500ms", "to:be")
	b := p.file("two", "Sim: pwd\nSim: sleep 500ms", "to:be")
	p.waitFor("both running at once", 20*time.Second, func() bool {
		s := l.Snapshot(t.Context())
		return len(s.Workers) == 2 && s.Workers[0].Worktree != "" && s.Workers[0].Worktree != s.Workers[1].Worktree
	})
	p.waitFor("both closed", 20*time.Second, func() bool { return p.issue(a).Closed && p.issue(b).Closed })
	cwd := func(id int64) string {
		f := fieldsOf(p.comments(id), l.actor)
		return strings.TrimPrefix(f[len(f)-1][outbox.FieldTests], "cwd ")
	}
	real := func(s string) string { r, _ := filepath.EvalSymlinks(s); return r }
	wa, wb := real(cwd(a)), real(cwd(b))
	if wa == wb || wa != real(filepath.Join(roster.WorktreesDir(p.dir, "be"), fmt.Sprint(a))) || wb != real(filepath.Join(roster.WorktreesDir(p.dir, "be"), fmt.Sprint(b))) {
		t.Errorf("worked in %q and %q", wa, wb)
	}
	list := git("worktree", "list", "--porcelain")
	for _, id := range []int64{a, b} {
		if !strings.Contains(list, "branch refs/heads/"+roster.WorktreeBranch("be", id)+"\n") {
			t.Errorf("no worktree on %s:\n%s", roster.WorktreeBranch("be", id), list)
		}
	}
	if out := git("status", "--porcelain"); out != "" {
		t.Errorf("the role's checkout changed:\n%s", out)
	}
	// What the Worker left uncommitted is committed on its issue's
	// branch, and the result says where.
	if out := git("show", roster.WorktreeBranch("be", a)+":made-by-worker.txt"); out != "written by a worker\n" {
		t.Errorf("the branch holds %q", out)
	}
	if out := git("log", "--format=%s", "-1", roster.WorktreeBranch("be", a)); out != fmt.Sprintf("be #%d (attempt 1): the work its Worker left\n", a) {
		t.Errorf("the branch's last commit is %q", out)
	}
	if !hasText(p.comments(a), "its work is on branch "+roster.WorktreeBranch("be", a)+" (committed ") {
		t.Errorf("the result does not name the branch: %v", p.comments(a))
	}
	if out := git("log", "--format=%s", "-1", roster.WorktreeBranch("be", b)); out != "first\n" {
		t.Errorf("a Worker that left nothing got a commit: %q", out)
	}
}

// An agent Worker (kind = "claude") stopped as STALE goes on with its
// session: the next attempt runs the role's resume command line with
// {session}, and its result's cost is posted.
func TestRestartedAgentWorkerResumesItsSession(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	start := `echo '{"type":"system","subtype":"init","session_id":"sess-42"}'; exec sleep 600`
	resume := `echo "resumed $1" >> "$2"; printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"session_id":"sess-42","result":"Tests: 4 passed\nState: done","total_cost_usd":0.25,"usage":{"input_tokens":100,"output_tokens":20}}'`
	p := newProject(t, fmt.Sprintf("[roles.be]\nkind = \"claude\"\nworker = [\"sh\", \"-c\", %q]\nresume = [\"sh\", \"-c\", %q, \"sh\", \"{session}\", %q]\n",
		start, resume, trace), 50*time.Millisecond)
	l := p.lead("be", 1, func(o *Options) {
		o.Liveness = Liveness{CheckInterval: 20 * time.Millisecond, WarningAfter: 200 * time.Millisecond, StaleAfter: 500 * time.Millisecond,
			Restart: config.Restart{MaxRestarts: 2, Window: config.Duration(time.Minute),
				BackoffBase: config.Duration(10 * time.Millisecond), BackoffCap: config.Duration(10 * time.Millisecond)}}
	})
	runLead(t, l)
	id := p.file("agent job", "", "to:be")
	p.waitFor("the issue closed", 30*time.Second, func() bool { return p.issue(id).Closed })
	if data, _ := os.ReadFile(trace); string(data) != "resumed sess-42\n" {
		t.Errorf("resume trace %q", data)
	}
	rec, err := readAttemptResult(roster.AttemptDir(roster.StatusDir(p.wf), "be", id, 2))
	if err != nil || rec.SessionID != "sess-42" || rec.Usage == nil || rec.Usage.CostUSD != 0.25 || rec.Evidence[outbox.FieldTests] != "4 passed" {
		t.Errorf("attempt 2's result %+v (usage %+v), %v", rec, rec.Usage, err)
	}
	if !hasText(p.comments(id), "session sess-42; 100 tokens in, 20 out, $0.2500") {
		t.Errorf("the result does not give the session and cost: %v", p.comments(id))
	}
}
