package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// The guide's project: a Go module whose Sum skips the last element, so
// its test fails until the loop is fixed.
var guideShop = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"sum.go": "package shop\n\n// Sum adds up xs.\nfunc Sum(xs []int) int {\n\ttotal := 0\n" +
		"\tfor i := 0; i < len(xs)-1; i++ {\n\t\ttotal += xs[i]\n\t}\n\treturn total\n}\n",
	"sum_test.go": "package shop\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n" +
		"\tif got := Sum([]int{1, 2, 3}); got != 6 {\n\t\tt.Fatalf(\"Sum(1, 2, 3) = %d, want 6\", got)\n\t}\n}\n",
}

// guideTOML is the first ```toml block of section 3 of the agent-team
// guide at path: the daokit.toml the guide tells a person to write.
func guideTOML(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, "\n## 3. ")
	if start < 0 {
		t.Fatalf("%s has no section 3", path)
	}
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	m := regexp.MustCompile("(?s)```toml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("section 3 of %s has no ```toml block", path)
	}
	return m[1]
}

// guideScript scripts the guide's scenario for a coder and a reviewer
// CLI: in iteration 1 the coder edits a comment and runs the failing
// tests, the reviewer requests changes; in iteration 2 the coder fixes
// the loop and the reviewer approves. The iteration-2 rules come first
// and match on what only iteration 2's briefs carry: the review's
// finding (coder) and the coder's report (reviewer).
func guideScript(mark, coder, reviewer string) []fakemodel.Rule {
	const finding = "FINDING-last-element"
	const fixed = "FIXED-loop"
	var document, fix, test, look fakemodel.ToolCall
	if coder == "claude" {
		document = fakemodel.Edit(fakemodel.Cwd+"/sum.go", "// Sum adds up xs.", "// Sum adds up the numbers in xs.")
		fix = fakemodel.Edit(fakemodel.Cwd+"/sum.go", "i < len(xs)-1", "i < len(xs)")
		test = fakemodel.Bash("go test ./...")
	} else {
		document = fakemodel.PatchLine("sum.go", "// Sum adds up xs.", "// Sum adds up the numbers in xs.")
		fix = fakemodel.PatchLine("sum.go", "\tfor i := 0; i < len(xs)-1; i++ {", "\tfor i := 0; i < len(xs); i++ {")
		test = fakemodel.Exec("go test ./...")
	}
	if reviewer == "claude" {
		look = fakemodel.Read(fakemodel.Cwd + "/sum.go")
	} else {
		look = fakemodel.Exec("cat sum.go")
	}
	return []fakemodel.Rule{
		{Name: "reviewer-2", Match: mark, All: []string{"VERDICT:", fixed}, Turns: []fakemodel.Turn{
			fakemodel.Call("Reading the fix.", look),
			fakemodel.Say("- the loop now reaches the last element\nVERDICT: approve — Sum adds every element"),
		}},
		{Name: "reviewer-1", Match: mark, All: []string{"VERDICT:"}, Turns: []fakemodel.Turn{
			fakemodel.Call("Reading the change.", look),
			fakemodel.Say("- Sum still stops before the last element (" + finding + ")\nVERDICT: request_changes — TestSum still fails"),
		}},
		{Name: "coder-2", Match: mark, All: []string{finding}, Turns: []fakemodel.Turn{
			fakemodel.Call("Fixing the loop bound.", fix),
			fakemodel.Say(fixed + ": Sum's loop reaches the last element."),
		}},
		{Name: "coder-1", Match: mark, Turns: []fakemodel.Turn{
			fakemodel.Call("Documenting Sum.", document),
			fakemodel.Call("Running the tests.", test),
			fakemodel.Say("Documented Sum; go test ./... still fails."),
		}},
	}
}

// TestAgentTeamGuideWorksAsWritten follows section 3 of
// docs/workflows/agent-team.en.md with the real CLIs: the daokit root
// shop-team beside the Go project shop, the guide's own daokit.toml
// (read from the markdown, so the test breaks when the guide drifts;
// the zh-CN guide must say the same), and the guide's shell steps. The
// only local part is outside daokit.toml: the bench's environment points
// both CLIs at the scripted model (ANTHROPIC_BASE_URL, and CODEX_HOME's
// config.toml with a provider, which also lists Go's build cache as a
// writable root of Codex's sandbox, as the guide tells a Go developer to
// do). Iteration 1: the coder edits but the test still fails, the
// reviewer requests changes, the judge's `go test ./...` fails in the
// run's worktree. Iteration 2: the coder fixes it, the reviewer
// approves, the judge passes; `daokit send --accept` commits the agent's
// uncommitted fix and merges it into the project's main branch, and the
// lines the guide shows of send --wait, status, diff --stat and git log
// are what they printed. Then the same with the two CLIs swapped, as the
// guide allows, and with the controller SIGKILLed while the change waits
// for review: a new one restores the review and the accept merges it.
// The controller is the one `daokit send` starts, with the bench's
// environment (nothing in daokit.toml), as from a person's shell.
func TestAgentTeamGuideWorksAsWritten(t *testing.T) {
	t.Parallel()
	guide := filepath.Join("..", "docs", "workflows", "agent-team.en.md")
	en := guideTOML(t, guide)
	zh := guideTOML(t, filepath.Join("..", "docs", "workflows", "agent-team.zh-CN.md"))
	var enCfg, zhCfg map[string]any
	if _, err := toml.Decode(en, &enCfg); err != nil {
		t.Fatalf("the guide's daokit.toml: %v", err)
	}
	if _, err := toml.Decode(zh, &zhCfg); err != nil {
		t.Fatalf("the zh-CN guide's daokit.toml: %v", err)
	}
	if !reflect.DeepEqual(enCfg, zhCfg) {
		t.Errorf("the en and zh-CN guides configure different teams:\n%v\n%v", enCfg, zhCfg)
	}
	for _, pair := range [][2]string{{"claude", "codex"}, {"codex", "claude"}} {
		t.Run(pair[0]+"-codes", func(t *testing.T) {
			t.Parallel()
			mark := "MARK-guide-" + pair[0]
			b := newAgentBenchWith(t, benchSpec{files: guideShop}, guideScript(mark, pair[0], pair[1])...)
			// The guide's layout: the project shop and the daokit root
			// shop-team side by side (dir = "../shop").
			base := t.TempDir()
			project := filepath.Join(base, "shop")
			if err := os.Rename(b.project, project); err != nil {
				t.Fatal(err)
			}
			b.project = project
			b.root = newRootIn(t, mkdir(t, filepath.Join(base, "shop-team")), "")
			config := en
			if pair[0] == "codex" {
				config = strings.NewReplacer(`kind = "claude"`, `kind = "codex"`, `kind = "codex"`, `kind = "claude"`).Replace(config)
			}
			if err := os.WriteFile(filepath.Join(b.root, "daokit.toml"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stopRootController(t, b.root) })
			before := gittest.Git(t, b.project, "rev-parse", "main")

			// daokit send --wait starts the controller and streams the run
			// until it waits for the person's review.
			wait := b.daokit(3*time.Minute, "send", "--root", b.root, "--wait", mark+": make TestSum pass")
			t.Logf("send --wait:\n%s", wait.stdout)
			if wait.code != 0 {
				t.Fatalf("send --wait: %+v\n%s", wait, b.describe())
			}
			taskID := ackTask(t, wait)
			b.waitOp(taskID, "REVIEW_PENDING", 10*time.Second)

			// The judge ran go test in the run's worktree: it failed on
			// iteration 1's change and passed on iteration 2's (in the root
			// it would fail both times, in the checkout too).
			var judged []string
			for _, e := range events(t, b.root) {
				if e.TaskID == taskID && op(e) == "ITERATION_FINISHED" {
					judged = append(judged, e.Payload.String("decision")+" "+e.Payload.String("reason_code"))
				}
			}
			if want := "continue JUDGE_COMMAND_FAILED,done JUDGE_COMMAND_PASSED"; strings.Join(judged, ",") != want {
				t.Errorf("judge decisions %q, want %q\n%s", judged, want, b.describe())
			}
			// The coder's summary comes from its tool results: its go test failed.
			summary, _ := findEvent(t, b.root, func(e ledger.Event) bool {
				return e.TaskID == taskID && e.StepID == "I1-coder" && op(e) == "STEP_SUMMARY" && isTrue(e, "final")
			})
			if text := summary.Payload.String("text"); !strings.Contains(text, "tests failing in TestSum") {
				t.Errorf("I1-coder's summary %q does not say its tests failed", text)
			}
			if main := gittest.Git(t, b.project, "rev-parse", "main"); main != before {
				t.Errorf("main moved before /accept: %s", main)
			}
			status := b.daokit(20*time.Second, "status", "--root", b.root)
			t.Logf("status:\n%s", status.stdout)
			stat := b.daokit(20*time.Second, "diff", "--root", b.root, "--stat")
			t.Logf("diff --stat:\n%s", stat.stdout)
			if stat.code != 0 || !strings.Contains(stat.stdout, "sum.go") {
				t.Errorf("diff --stat: %+v", stat)
			}

			if pair[0] == "codex" {
				// A controller that dies while the change waits for review:
				// the next one (`daokit controller`, as the window starts
				// it) restores the review from the ledger, and the accept
				// sent to it merges the change.
				pid, err := ledger.LockHolder(b.root)
				if err != nil || pid == 0 {
					t.Fatalf("no controller holds the root: %d %v", pid, err)
				}
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				waitUnlocked(t, b.root)
				ctl := b.startController()
				defer ctl.stop()
			}
			accept := b.daokit(30*time.Second, "send", "--root", b.root, "--accept")
			t.Logf("send --accept:\n%s", accept.stdout)
			if accept.code != 0 {
				t.Fatalf("send --accept: %+v", accept)
			}
			if end := b.waitOp(taskID, "RUN_FINISHED", 30*time.Second); end.Payload.String("status") != ledger.StatusDone {
				t.Errorf("run ended %v", end.Payload)
			}
			// The steps' own acceptance events carry no commit; the merge's does.
			passed, _ := findEvent(t, b.root, func(e ledger.Event) bool {
				return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("commit") != ""
			})
			main := gittest.Git(t, b.project, "rev-parse", "main")
			if main == before || passed.Payload.String("commit") != main {
				t.Fatalf("main %s (was %s); ACCEPTANCE_PASSED %v", main, before, passed.Payload)
			}
			if got := gittest.Git(t, b.project, "show", "main:sum.go"); !strings.Contains(got, "i < len(xs); i++") ||
				!strings.Contains(got, "// Sum adds up the numbers in xs.") {
				t.Errorf("main:sum.go has not both iterations' edits:\n%s", got)
			}
			log := gittest.Git(t, b.project, "log", "-1", "--format=%B", "main")
			if pair[0] == "claude" {
				// What the guide shows of each command is what it prints.
				shows(t, guide, wait.stderr+wait.stdout, "starting a controller (pid ", "step I1-coder: requesting",
					"│ tool · Bash go test ./...", "│ tool result · Bash Exit code 1 (failed)",
					" waits for review: daokit diff, then daokit send --accept or --reject REASON")
				shows(t, guide, status.stdout, "Loop: iteration 2/4 · judge", "Last verdict: approved — Sum adds every element",
					"Judge (command): done — ok  \texample.com/shop\t", "Latest summary: tests passing",
					"Usage so far: 900 input and 180 output tokens, $", "Kept worktrees:", "uncommitted changes")
				shows(t, guide, stat.stdout, "sum.go  +2 -2")
				shows(t, guide, log, "\n\nReview: Sum adds every element\n\nDaokit-Task: ", "Daokit-Step: I2-judge")
				// A step's summary names the file from the worktree's top,
				// not by the absolute path the CLI reported.
				summary, _ := findEvent(t, b.root, func(e ledger.Event) bool {
					return e.TaskID == taskID && op(e) == "STEP_SUMMARY" && e.StepID == "I1-coder" && isTrue(e, "final")
				})
				shows(t, guide, summary.Payload.String("text"), "edited 1: sum.go; tests failing in TestSum")
			}
			t.Logf("git log -1 main:\n%s", log)
			if !strings.HasPrefix(log, "daokit: "+mark+": make TestSum pass") ||
				!strings.Contains(log, "Review: Sum adds every element") || !strings.Contains(log, "Daokit-Task: "+taskID) {
				t.Errorf("main's commit is not daokit's:\n%s", log)
			}
			t.Logf("git status in the project after /accept:\n%s", gittest.Git(t, b.project, "status", "--short"))
			// The person's checkout got the fix: its own go test passes.
			test := exec.Command("go", "test", "./...")
			test.Dir, test.Env = b.project, b.env
			if out, err := test.CombinedOutput(); err != nil {
				t.Errorf("go test in the project after /accept: %v\n%s", err, out)
			}
		})
	}
}

// mkdir makes dir and returns it.
func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// daokit runs the binary with the bench's environment, as a person's
// shell would, for at most within.
func (b *agentBench) daokit(within time.Duration, args ...string) result {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, daokit, args...)
	cmd.Env = b.env
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errOut.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		res.code = exit.ExitCode()
	} else if err != nil {
		b.t.Fatalf("daokit %v: %v (%s)", args, err, errOut.String())
	}
	return res
}

// waitUnlocked waits until no controller holds root.
func waitUnlocked(t *testing.T, root string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if pid, _ := ledger.LockHolder(root); pid == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed controller still holds the root")
		}
	}
}

// isTrue reports whether e's payload has key set to true.
func isTrue(e ledger.Event, key string) bool {
	raw, _ := e.Payload.Get(key)
	return string(raw) == "true"
}

// shows checks that the guide at path shows each of snippets and that
// the command's output got has it too.
func shows(t *testing.T, path, got string, snippets ...string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(raw), "\n    ", "\n") // git log's indent in the guide
	for _, s := range snippets {
		if !strings.Contains(doc, s) {
			t.Errorf("the guide no longer shows %q", s)
		}
		if !strings.Contains(got, s) {
			t.Errorf("the guide shows %q, the binary printed:\n%s", s, got)
		}
	}
}
