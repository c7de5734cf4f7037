package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/ledger"
)

// lanesCLIs finds the folder holding the real claude and codex
// executables: $DAOKIT_AGENTS_BIN, else e2e/agents/node_modules/.bin
// (npm ci in e2e/agents), else /tmp/clis/node_modules/.bin. Without them
// the test is skipped, and fails in CI, where they must be installed.
func lanesCLIs(t *testing.T) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("DAOKIT_AGENTS_BIN"); d != "" {
		dirs = append(dirs, d)
	}
	if d, err := filepath.Abs("agents/node_modules/.bin"); err == nil {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, "/tmp/clis/node_modules/.bin")
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "claude")) && isExecutable(filepath.Join(d, "codex")) {
			return d
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("the real agent CLIs are not installed (looked in %v): npm ci in e2e/agents", dirs)
	}
	t.Skipf("the real agent CLIs are not installed (looked in %v)", dirs)
	return ""
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// lanesRealConfig is a daokit.toml with one default lane of kind (no
// command: the product's DefaultCommand), pointed at the scripted model
// with an isolated home. Restarts are allowed, so that a failure that is
// restarted shows as a second attempt.
func lanesRealConfig(t *testing.T, kind, modelURL string) string {
	t.Helper()
	home := t.TempDir()
	env := []string{"HOME=" + home}
	switch kind {
	case "claude":
		env = append(env, "ANTHROPIC_BASE_URL="+modelURL, "ANTHROPIC_API_KEY=sk-test-dummy",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	case "codex":
		codexHome := filepath.Join(home, ".codex")
		if err := os.MkdirAll(codexHome, 0o755); err != nil {
			t.Fatal(err)
		}
		toml := `model = "gpt-5"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "` + modelURL + `/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
`
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
		env = append(env, "CODEX_HOME="+codexHome, "OPENAI_API_KEY=sk-test-dummy")
	}
	quoted := make([]string, len(env))
	for i, e := range env {
		quoted[i] = `"` + e + `"`
	}
	return drillTimings + `
[[lanes]]
name = "worker"
kind = "` + kind + `"
env = [` + strings.Join(quoted, ", ") + `]
stop_grace = "2s"
timeout = "3m"
`
}

// lanesRun starts a controller on root, an empty folder that is not a
// git repository (the lane runs in the root itself), sends instruction
// and returns the run's end.
func lanesRun(t *testing.T, root, kind, modelURL, instruction string) ledger.Event {
	t.Helper()
	newRootIn(t, root, lanesRealConfig(t, kind, modelURL))
	ctl := startController(t, root)
	defer ctl.stop()
	r := run(t, "send", "--root", root, "--", instruction)
	if r.code != 0 {
		t.Fatalf("send: %d %s", r.code, r.stderr)
	}
	taskID := strings.Fields(strings.TrimPrefix(strings.SplitN(r.stdout, "\n", 2)[0], "task_id="))[0]
	return waitEvent(t, root, "RUN_FINISHED", 3*time.Minute, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
}

func lanesStarts(t *testing.T, root string) int {
	n := 0
	for _, e := range events(t, root) {
		if e.EventType == ledger.EventStepStarted {
			n++
		}
	}
	return n
}

// TestRealDefaultLanes drives the real Claude Code and Codex CLIs, each
// on its default lane, against the scripted model. Not parallel: the
// CLIs are found on PATH, which the test sets for the controller.
//
//   - The default lanes edit: the file the model writes is there, DONE.
//     The instruction starts with "-": it reaches the model as the
//     prompt, not as an option.
//   - A write the lane's permissions refuse (outside the folder) ends
//     AGENT_PERMISSION_DENIED, not DONE.
//   - A provider that answers 401 ends AGENT_AUTH_FAILED after one
//     attempt; Claude Code is stopped at its first api_retry rather than
//     after its own retries (about three minutes).
func TestRealDefaultLanes(t *testing.T) {
	bin := lanesCLIs(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, kind := range []string{"claude", "codex"} {
		t.Run(kind+"/edits", func(t *testing.T) {
			root, denyRoot, outside := t.TempDir(), t.TempDir(), lanesOutside(t)
			model := fakemodel.Start(t,
				fakemodel.Rule{Name: "edit", Match: "LANES-EDIT", Turns: []fakemodel.Turn{
					fakemodel.Call("Writing.", lanesWrite(kind, root)), fakemodel.Say("Done: wrote hello.txt."),
				}},
				fakemodel.Rule{Name: "deny", Match: "LANES-DENY", Turns: []fakemodel.Turn{
					fakemodel.Call("Writing elsewhere.", lanesWrite(kind, outside)), fakemodel.Say("Done."),
				}},
			)
			end := lanesRun(t, root, kind, model.URL, "-LANES-EDIT: write hello.txt")
			if end.Payload.String("status") != ledger.StatusDone {
				t.Fatalf("run ended %s (%s)", end.Payload.String("status"), end.Payload.String("reason_code"))
			}
			if b, err := os.ReadFile(filepath.Join(root, "hello.txt")); err != nil || string(b) != "hello\n" {
				t.Errorf("hello.txt: %q %v", b, err)
			}
			reqs := model.Scripted("edit")
			if len(reqs) == 0 || !strings.Contains(reqs[0].UserText, "-LANES-EDIT: write hello.txt") {
				t.Errorf("the model never got the instruction as the prompt: %d requests", len(reqs))
			}

			end = lanesRun(t, denyRoot, kind, model.URL, "LANES-DENY: write outside")
			if got := end.Payload.String("reason_code"); got != "AGENT_PERMISSION_DENIED" || end.Payload.String("status") == ledger.StatusDone {
				t.Fatalf("run ended %s (%s), want AGENT_PERMISSION_DENIED", end.Payload.String("status"), got)
			}
			if _, err := os.Stat(filepath.Join(outside, "hello.txt")); err == nil {
				t.Error("the refused write happened")
			}
			if n := lanesStarts(t, denyRoot); n != 1 {
				t.Errorf("%d attempts at denied work, want 1", n)
			}
		})
		t.Run(kind+"/401", func(t *testing.T) {
			model := fakemodel.Start(t, fakemodel.Rule{Name: "auth", Match: "LANES-AUTH", Turns: []fakemodel.Turn{fakemodel.Fail(401)}})
			started, root := time.Now(), t.TempDir()
			end := lanesRun(t, root, kind, model.URL, "LANES-AUTH: anything")
			if got := end.Payload.String("reason_code"); got != "AGENT_AUTH_FAILED" {
				t.Fatalf("run ended %s (%s), want AGENT_AUTH_FAILED", end.Payload.String("status"), got)
			}
			if n := lanesStarts(t, root); n != 1 {
				t.Errorf("%d attempts, want exactly 1", n)
			}
			// Claude Code alone would retry a 401 for about three minutes.
			if d := time.Since(started); d > 90*time.Second {
				t.Errorf("authentication failure took %v", d)
			}
			// The scripted model says x-should-retry: false, so Claude Code
			// may give up at once; when it does retry, daokit stops it at
			// the first 401 retry (the replay tests in controller cover
			// that path with a real captured stream).
			for _, e := range events(t, root) {
				if op(e) != "AGENT_RETRY" {
					continue
				}
				if raw, _ := e.Payload.Get("stopping"); string(raw) != "true" || payloadInt(e, "status") != 401 {
					t.Errorf("a retry of a 401 that did not stop the CLI: %v", e.Payload)
				}
			}
			s := run(t, "status", "--root", root)
			if !strings.Contains(s.stdout, "Agent: authentication failed") {
				t.Errorf("status does not say authentication failed:\n%s", s.stdout)
			}
		})
	}
}

// TestRealClaudeStoppedAtAFutileRetry runs the real Claude Code on its
// default lane against a gateway that answers 401 without saying whether
// to retry (no x-should-retry header), where Claude Code retries for
// about three minutes. daokit stops it at its first api_retry of the 401
// and the run ends AGENT_AUTH_FAILED after one attempt.
func TestRealClaudeStoppedAtAFutileRetry(t *testing.T) {
	bin := lanesCLIs(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	}))
	t.Cleanup(gateway.Close)
	started, root := time.Now(), t.TempDir()
	end := lanesRun(t, root, "claude", gateway.URL, "LANES-AUTH: anything")
	if got := end.Payload.String("reason_code"); got != "AGENT_AUTH_FAILED" {
		t.Fatalf("run ended %s (%s), want AGENT_AUTH_FAILED", end.Payload.String("status"), got)
	}
	if d := time.Since(started); d > 90*time.Second {
		t.Errorf("authentication failure took %v", d)
	}
	retries := 0
	for _, e := range events(t, root) {
		if op(e) == "AGENT_RETRY" {
			retries++
			if raw, _ := e.Payload.Get("stopping"); string(raw) != "true" || payloadInt(e, "status") != 401 {
				t.Errorf("retry %v", e.Payload)
			}
		}
	}
	if retries != 1 || lanesStarts(t, root) != 1 {
		t.Errorf("%d AGENT_RETRY events and %d attempts, want 1 and 1", retries, lanesStarts(t, root))
	}
}

// lanesWrite is the tool call that writes hello.txt into dir in the
// CLI's own terms: Claude's Write, Codex's apply_patch.
func lanesWrite(kind, dir string) fakemodel.ToolCall {
	path := filepath.Join(dir, "hello.txt")
	if kind == "codex" {
		return fakemodel.ApplyPatch(map[string]string{path: "hello\n"})
	}
	return fakemodel.Write(path, "hello\n")
}

// lanesOutside is a folder outside the lane's working folder and outside
// the temporary directory, which Codex's workspace-write sandbox lets it
// write to as well: under the user's cache folder.
func lanesOutside(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache folder outside the temporary directory: %v", err)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "daokit-e2e-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
