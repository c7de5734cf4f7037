package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// The real-agent bench: the real Claude Code and Codex CLIs, pinned in
// e2e/agents (`make agents` installs them with npm ci), driven by the
// real daokit binary and answering to a scripted model on 127.0.0.1
// (package internal/fakemodel), offline. A test reads:
//
//	b := newAgentBench(t,
//		fakemodel.Rule{Name: "review", Match: "MARK", All: []string{"VERDICT:"},
//			Turns: []fakemodel.Turn{fakemodel.Say("VERDICT: approve — fine")}},
//		fakemodel.Rule{Name: "code", Match: "MARK", Turns: []fakemodel.Turn{
//			fakemodel.Call("Writing.", fakemodel.Write(fakemodel.Cwd+"/hello.txt", "hi\n")),
//			fakemodel.Say("Wrote it."),
//		}},
//	)
//	b.configure(claudeLane("coder") + codexLane("reviewer") + loopFlow("coder", "reviewer"))
//	ctl := b.startController()
//	defer ctl.stop()
//	taskID := ackTask(t, run(t, "send", "--root", b.root, "MARK: say hi"))
//	b.waitOp(taskID, "REVIEW_PENDING", time.Minute) // or "RUN_FINISHED", an event type …
//	b.model.Scripted("code")                         // what Claude really sent, turn by turn
//
// Rules: the coder's and the reviewer's briefs both carry the person's
// instruction, so the reviewer's rule comes first and also needs a
// phrase only its brief has ("VERDICT:"). The turn answering a request
// is the number of model answers in its history (see package
// fakemodel); fakemodel.Cwd in a tool argument becomes the step's
// worktree as the CLI reports it, since Claude's file tools want
// absolute paths; Codex takes relative ones (fakemodel.PatchLine,
// fakemodel.Exec). Turn.Hold stops an agent mid-step until
// b.model.Release (b.model.Holding() says when it is there); Turn.Error
// answers with the provider's HTTP error (fakemodel.Fail(401)).
//
// Lanes: claudeLane and codexLane set explicit commands that may edit
// (Claude acceptEdits, Codex workspace-write) and "--" before the
// instruction; a lane with only name, kind and dir = "{project}" runs
// the kind's default command, as a new user's daokit.toml does.
// configure writes daokit.toml as b.timings (agentTimings unless the
// test sets its own) plus the body, with {project} replaced by the
// project's path.
//
// newAgentBench lays out a HOME of the bench's own (a git identity, a
// .profile that keeps PATH in Codex's login shells) and CODEX_HOME in it
// (config.toml: the model server as provider "bench", wire_api
// responses, retries off, analytics off, model gpt-5.5), a git project
// (b.project: hello.txt = "line one", README.md) and a daokit root
// (b.root). The controller, and so every CLI it starts, runs with b.env:
// PATH with the pinned CLIs first, that HOME and CODEX_HOME, a dummy
// OPENAI_API_KEY, Claude pointed at the model (ANTHROPIC_BASE_URL, a
// dummy ANTHROPIC_API_KEY, nonessential traffic, autoupdate, telemetry
// and error reports off), no inherited ANTHROPIC_*, OPENAI_*, CLAUDE_*,
// CODEX_* or IS_SANDBOX, the developer's Go caches (GOCACHE, GOMODCACHE,
// GOPATH: an agent's `go test` takes a second) and English messages. On a timeout, waitOp
// prints the model's requests, the run's events and the steps' logs
// (describe).
//
// Without the CLIs the tests skip, saying how to install them; in CI
// (CI=true) they fail instead; with -short they skip.
type agentBench struct {
	t       *testing.T
	model   *fakemodel.Server
	root    string
	project string
	home    string
	env     []string
	// timings is the head of daokit.toml that configure writes
	// (agentTimings unless a test sets its own, e.g. for a hang).
	timings string
}

// agentsBin is the folder of the pinned CLIs: DAOKIT_AGENTS_BIN, else
// e2e/agents/node_modules/.bin.
func agentsBin() string {
	if dir := os.Getenv("DAOKIT_AGENTS_BIN"); dir != "" {
		return dir
	}
	abs, _ := filepath.Abs(filepath.Join("agents", "node_modules", ".bin"))
	return abs
}

// requireAgents skips (fails in CI) unless both pinned CLIs run and are
// the versions e2e/agents/package.json pins.
func requireAgents(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real-agent tests do not run with -short")
	}
	bin := agentsBin()
	missing := func(why string) {
		t.Helper()
		msg := "real CLIs missing: " + why + " (run `npm ci` in e2e/agents, or set DAOKIT_AGENTS_BIN)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	raw, err := os.ReadFile(filepath.Join("agents", "package.json"))
	if err != nil {
		t.Fatalf("the pins: %v", err)
	}
	var pins struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &pins); err != nil {
		t.Fatalf("e2e/agents/package.json: %v", err)
	}
	for cli, pkg := range map[string]string{"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"} {
		out, err := exec.Command(filepath.Join(bin, cli), "--version").Output()
		if err != nil {
			missing(cli + ": " + err.Error())
		}
		if want := pins.Dependencies[pkg]; !strings.Contains(string(out), want) {
			missing(cli + " is " + strings.TrimSpace(string(out)) + ", pinned " + want)
		}
	}
	return bin
}

// newAgentBench starts the scripted model with rules and lays out the
// bench's home, project and daokit root (see agentBench).
func newAgentBench(t *testing.T, rules ...fakemodel.Rule) *agentBench {
	t.Helper()
	bin := requireAgents(t)
	b := &agentBench{t: t, model: fakemodel.Start(t, rules...), home: t.TempDir(), timings: agentTimings}
	b.project = gittest.NewRepo(t, map[string]string{"hello.txt": "line one\n", "README.md": "# bench project\n"})
	codexHome := filepath.Join(b.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	// gpt-5.5 is a model Codex 0.169.0 has metadata for: it offers its
	// freeform apply_patch tool and prints no "model metadata not found"
	// error item, as with a real account.
	codexConfig := `model = "gpt-5.5"
model_provider = "bench"

[model_providers.bench]
name = "bench"
base_url = "` + b.model.URL + `/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	// Codex runs commands in a login shell, which takes PATH from
	// /etc/profile: the profile puts the test's PATH back.
	profile := "export PATH=" + shellQuote(bin+":"+os.Getenv("PATH")) + "\n"
	if err := os.WriteFile(filepath.Join(b.home, ".profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	// A person's machine knows who commits; the bench's home says so too.
	gitIdentity := "[user]\n\tname = daokit bench\n\temail = bench@daokit.invalid\n"
	if err := os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte(gitIdentity), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "OPENAI_") || strings.HasPrefix(name, "CLAUDE_") ||
			strings.HasPrefix(name, "CODEX_") || name == "HOME" || name == "PATH" || name == "IS_SANDBOX" {
			continue
		}
		b.env = append(b.env, kv)
	}
	// Go's caches stay the developer's: an agent's `go test` in a home of
	// its own would build the standard library from nothing each time.
	caches, err := goCaches()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	b.env = append(b.env, caches...)
	b.env = append(b.env,
		"PATH="+bin+":"+os.Getenv("PATH"),
		"HOME="+b.home,
		"CODEX_HOME="+codexHome,
		"OPENAI_API_KEY=sk-bench-dummy",
		"ANTHROPIC_BASE_URL="+b.model.URL,
		"ANTHROPIC_API_KEY=sk-ant-bench-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DAOKIT_LANG=en",
	)
	b.root = newRoot(t, "")
	return b
}

// agentTimings is the head of a bench's daokit.toml: liveness thresholds
// above a CLI's start-up on a loaded 2-core machine and above a tool that
// prints nothing for a while (Claude's Bash running a cold `go test`
// printed nothing for 30 s here), quick restarts.
const agentTimings = `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "20s"
stale_after = "90s"

[lease]
ttl = "1s"

[restart]
max_restarts = 3
window = "10m"
backoff_base = "50ms"
backoff_cap = "200ms"
`

// configure writes the root's daokit.toml: b.timings, then body with
// {project} replaced by the project's path.
func (b *agentBench) configure(body string) {
	b.t.Helper()
	text := b.timings + strings.ReplaceAll(body, "{project}", b.project)
	if err := os.WriteFile(filepath.Join(b.root, "daokit.toml"), []byte(text), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// startController starts the bench's controller with the bench's env.
func (b *agentBench) startController() *controllerProc {
	b.t.Helper()
	return startControllerEnv(b.t, b.root, b.env)
}

// claudeLane is a Claude Code lane in the project that may edit files
// (acceptEdits: the default lane's permissions are being changed
// elsewhere) and resumes its session after a restart.
func claudeLane(name string) string {
	return `
[[lanes]]
name = "` + name + `"
kind = "claude"
dir = "{project}"
command = ["claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--", "{instruction}"]
resume_command = ["claude", "-p", "--resume", "{session}", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--", "{instruction}"]
stop_grace = "2s"
timeout = "2m"
`
}

// codexLane is a Codex lane in the project that may write in its
// worktree (workspace-write sandbox) and resumes its thread after a
// restart (`exec resume` has no --sandbox flag: -c sets it).
func codexLane(name string) string {
	return `
[[lanes]]
name = "` + name + `"
kind = "codex"
dir = "{project}"
command = ["codex", "exec", "--json", "--sandbox", "workspace-write", "--", "{instruction}"]
resume_command = ["codex", "exec", "--json", "-c", "sandbox_mode=\"workspace-write\"", "resume", "{session}", "--", "{instruction}"]
stop_grace = "2s"
timeout = "2m"
`
}

// loopFlow is a coder/reviewer loop that ends when the reviewer approves.
func loopFlow(coder, reviewer string) string {
	return `
[workflow]
kind = "loop"
max_iterations = 2
coder = "` + coder + `"
reviewer = "` + reviewer + `"
judge = "reviewer_approved"
`
}

// goCaches is GOCACHE, GOMODCACHE and GOPATH as go reports them for
// the test's own HOME, as environment entries.
var goCaches = sync.OnceValues(func() ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, err
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2]}, nil
})

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// describe is what a failing bench test prints: the requests the model
// got, and each step's stdout and stderr tails.
func (b *agentBench) describe() string {
	var sb strings.Builder
	for _, r := range b.model.Requests() {
		fmt.Fprintf(&sb, "model: %s %s rule=%q turn=%d side=%v status=%d\n", r.Method, r.Path, r.Rule, r.Turn, r.Side, r.Status)
	}
	logs, _ := filepath.Glob(filepath.Join(b.root, "*", "*", "*", "*", "*.log"))
	more, _ := filepath.Glob(filepath.Join(b.root, "*", "*", "*", "*.log"))
	for _, p := range append(logs, more...) {
		data, _ := os.ReadFile(p)
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&sb, "--- %s\n%s\n", p, data)
	}
	return sb.String()
}

// waitOp waits for the task's first event of operation operation (or of
// that event type); on a timeout the test fails with what the model got,
// the run's events and the steps' logs.
func (b *agentBench) waitOp(taskID, operation string, within time.Duration) ledger.Event {
	b.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if e, ok := findEvent(b.t, b.root, func(e ledger.Event) bool {
			return e.TaskID == taskID && (op(e) == operation || e.EventType == operation)
		}); ok {
			return e
		}
		if time.Now().After(deadline) {
			var sb strings.Builder
			for _, e := range events(b.t, b.root) {
				if e.TaskID == taskID {
					fmt.Fprintf(&sb, "event: %s %s %s %s\n", e.EventType, e.StepID, op(e), e.Payload)
				}
			}
			b.t.Fatalf("no %s of %s within %v\n%s%s", operation, taskID, within, sb.String(), b.describe())
		}
		time.Sleep(100 * time.Millisecond) // polling the log; the condition decides
	}
}
