package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/ledger"
)

// factsAgentBin is the folder of the pinned agent CLIs: $DAOKIT_AGENTS_BIN,
// else e2e/agents/node_modules/.bin (npm ci in e2e/agents). Without them
// the test is skipped, except in CI, where it fails.
func factsAgentBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DAOKIT_AGENTS_BIN")
	if dir == "" {
		abs, err := filepath.Abs(filepath.Join("agents", "node_modules", ".bin"))
		if err != nil {
			t.Fatal(err)
		}
		dir = abs
	}
	for _, cli := range []string{"claude", "codex"} {
		if _, err := os.Stat(filepath.Join(dir, cli)); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the agent CLIs are missing from %s: run npm ci in e2e/agents", dir)
			}
			t.Skipf("no %s in %s (npm ci in e2e/agents, or set DAOKIT_AGENTS_BIN)", cli, dir)
		}
	}
	return dir
}

// factsProject is a Go module whose TestAdd passes and TestBroken fails,
// in a git repository (Codex refuses to work outside one).
func factsProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"add.go":      "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"add_test.go": "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n\nfunc TestBroken(t *testing.T) {\n\tif Add(2, 2) != 5 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 5\", Add(2, 2))\n\t}\n}\n",
		"hello.txt":   "line one\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// factsLanes is the daokit.toml of one real-agent lane ("claude" or
// "codex") working in project against model, without a worktree.
func factsLanes(t *testing.T, kind, project string, model *fakemodel.Server) string {
	t.Helper()
	bin := factsAgentBin(t)
	home := t.TempDir()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goCache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// Codex runs commands in login shells, which take PATH from the
	// profile.
	path := bin + ":" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin"
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("export PATH="+path+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": path, "HOME": home, "GOCACHE": strings.TrimSpace(string(goCache)), "LANG": "C.UTF-8"}
	var command, resume string
	switch kind {
	case "claude":
		for k, v := range map[string]string{"ANTHROPIC_BASE_URL": model.URL, "ANTHROPIC_API_KEY": "sk-ant-dummy",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
			"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "0", "IS_SANDBOX": "1"} {
			env[k] = v
		}
		command = `["` + filepath.Join(bin, "claude") + `", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--", "{instruction}"]`
		resume = `["` + filepath.Join(bin, "claude") + `", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--resume", "{session}", "--", "{instruction}"]`
	case "codex":
		codexHome := t.TempDir()
		conf := fmt.Sprintf("model = \"gpt-5-codex\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\n"+
			"base_url = %q\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n"+
			"[analytics]\nenabled = false\n", model.URL+"/v1")
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		env["CODEX_HOME"], env["OPENAI_API_KEY"] = codexHome, "sk-dummy"
		command = `["` + filepath.Join(bin, "codex") + `", "exec", "--json", "--sandbox", "workspace-write", "--", "{instruction}"]`
		resume = `["` + filepath.Join(bin, "codex") + `", "exec", "--json", "-c", "sandbox_mode=\"workspace-write\"", "resume", "{session}", "{instruction}"]`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n[[lanes]]\nname = %q\nkind = %q\ncommand = %s\nresume_command = %s\ndir = %q\nisolation = \"none\"\nstop_grace = \"2s\"\n\n[lanes.env]\n",
		drillTimings, kind, kind, command, resume, project)
	for k, v := range env {
		fmt.Fprintf(&b, "%s = %q\n", k, v)
	}
	// The heartbeat's drill timings would take an agent running a cold
	// go test for a hung one.
	return strings.Replace(b.String(), "stale_after = \"2s\"", "stale_after = \"5m\"", 1)
}

// factsRun sends instruction to a controller on root and waits for the
// run's end (DONE, or retried once after FAILED/BLOCKED); it returns the
// task id.
func factsRun(t *testing.T, root, instruction string) string {
	t.Helper()
	r := run(t, "send", "--root", root, "--wait", instruction)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("send --wait: %d\n%s\n%s", r.code, r.stdout, r.stderr)
			for _, e := range events(t, root) {
				t.Logf("%s %s %s %s", e.StepID, e.EventType, op(e), e.Payload.String("reason_code"))
			}
		}
	})
	fin := waitEvent(t, root, "RUN_FINISHED", 3*time.Minute, func(e ledger.Event) bool { return op(e) == "RUN_FINISHED" })
	if status := fin.Payload.String("status"); status != ledger.StatusDone {
		// A provider error may end the run for a person to retry (see
		// controller/classify.go): the retry resumes the session.
		if rr := run(t, "send", "--root", root, "--retry", "--task-id", fin.TaskID, "--run-id", fin.RunID); rr.code != 0 {
			t.Fatalf("run ended %s (%s); retry: %s %s\nsend: %s %s", status, fin.Payload.String("reason_code"), rr.stdout, rr.stderr, r.stdout, r.stderr)
		}
		waitEvent(t, root, "RUN_FINISHED DONE", 3*time.Minute, func(e ledger.Event) bool {
			return op(e) == "RUN_FINISHED" && e.Payload.String("status") == ledger.StatusDone
		})
	}
	return fin.TaskID
}

// The real Claude Code runs go test, which fails: the step's summary says
// the tests fail (not "tests passing"), in the ledger and in status.
func TestRealClaudeFailingTestsSummarizedFailing(t *testing.T) {
	t.Parallel()
	project := factsProject(t)
	model := fakemodel.Start(t, fakemodel.Rule{Match: "MARK-testfail", Turns: []fakemodel.Turn{
		fakemodel.Call("Running the tests.", fakemodel.Bash("go test -count=1 ./...")),
		fakemodel.Say("Ran the tests."),
	}})
	root := newRoot(t, factsLanes(t, "claude", project, model))
	ctl := startController(t, root)
	defer ctl.stop()
	factsRun(t, root, "MARK-testfail: run the tests")
	var final string
	for _, e := range events(t, root) {
		if raw, _ := e.Payload.Get("final"); op(e) == "STEP_SUMMARY" && string(raw) == "true" {
			final = e.Payload.String("text")
		}
	}
	if !strings.Contains(final, "tests failing in TestBroken") || strings.Contains(final, "passing") {
		t.Fatalf("final summary %q", final)
	}
	if st := run(t, "status", "--root", root); !strings.Contains(st.stdout, "tests failing in TestBroken") {
		t.Fatalf("status:\n%s", st.stdout)
	}
}

// The real Codex runs go test, which fails: summarized failing too.
func TestRealCodexFailingTestsSummarizedFailing(t *testing.T) {
	t.Parallel()
	project := factsProject(t)
	model := fakemodel.Start(t, fakemodel.Rule{Match: "MARK-cx-testfail", Turns: []fakemodel.Turn{
		fakemodel.Call("Running the tests.", fakemodel.Exec("go test -count=1 ./...")),
		fakemodel.Say("Ran the tests."),
	}})
	root := newRoot(t, factsLanes(t, "codex", project, model))
	ctl := startController(t, root)
	defer ctl.stop()
	factsRun(t, root, "MARK-cx-testfail: run the tests")
	if st := run(t, "status", "--root", root); !strings.Contains(st.stdout, "tests failing in TestBroken") {
		t.Fatalf("status:\n%s", st.stdout)
	}
}

// A Claude step whose first process ends on a provider error (its cost
// reported) and is resumed in a second process costs what both cost: the
// run's cost equals the sum of each process's own cost, which is also
// what Claude Code reports as the session's total at the end.
func TestRealClaudeResumedCostIsTheSum(t *testing.T) {
	t.Parallel()
	project := factsProject(t)
	model := fakemodel.Start(t, fakemodel.Rule{Match: "MARK-resume", Turns: []fakemodel.Turn{
		{Text: "Writing.", Tools: []fakemodel.ToolCall{fakemodel.Write(filepath.Join(project, "hello.txt"), "first\n")},
			Usage: fakemodel.Usage{Input: 1146, Output: 30, CacheRead: 4000, CacheCreation: 200}},
		{Error: &fakemodel.APIError{Status: 500, Times: 1}, Text: "Second part done.",
			Usage: fakemodel.Usage{Input: 1500, Output: 20, CacheRead: 6000, CacheCreation: 100}},
	}})
	root := newRoot(t, factsLanes(t, "claude", project, model))
	ctl := startController(t, root)
	defer ctl.stop()
	task := factsRun(t, root, "MARK-resume: two parts")
	var starts []string
	for _, e := range events(t, root) {
		if op(e) == "SESSION_RESUME" {
			starts = append(starts, e.Payload.String("decision"))
		}
	}
	if strings.Join(starts, ",") != "resume" {
		t.Fatalf("session starts %v, want one resume", starts)
	}
	// Each process's own cost, from its result line in the step's log.
	var own []float64
	var sessionTotal float64
	logs, _ := filepath.Glob(filepath.Join(root, "artifacts", task, "*", "S1", "stdout.log"))
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var res struct {
				Type      string  `json:"type"`
				Total     float64 `json:"total_cost_usd"`
				SinceLast map[string]struct {
					CostUSD float64 `json:"costUSD"`
				} `json:"model_usage_since_last_result"`
			}
			if json.Unmarshal(sc.Bytes(), &res) != nil || res.Type != "result" {
				continue
			}
			c := 0.0
			for _, m := range res.SinceLast {
				c += m.CostUSD
			}
			own, sessionTotal = append(own, c), res.Total
		}
		f.Close()
	}
	if len(own) != 2 || own[0] <= 0 || own[1] <= 0 {
		t.Fatalf("process costs %v in %v, want two", own, logs)
	}
	js := run(t, "status", "--root", root, "--json")
	var doc struct {
		Workflow struct {
			Metrics struct {
				CostUSD   float64 `json:"cost_usd"`
				Input     int64   `json:"input_tokens"`
				CacheRead int64   `json:"cache_read_tokens"`
			} `json:"metrics"`
		} `json:"workflow"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, js.stdout)
	}
	m := doc.Workflow.Metrics
	if sum := own[0] + own[1]; math.Abs(m.CostUSD-sum) > 1e-9 || math.Abs(sessionTotal-sum) > 1e-9 {
		t.Fatalf("run cost %g, processes %v (sum %g), session total %g", m.CostUSD, own, sum, sessionTotal)
	}
	if m.CacheRead == 0 || m.Input <= m.CacheRead {
		t.Fatalf("tokens %+v: the input must include the cache reads", m)
	}
}
