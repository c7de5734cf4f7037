package controller

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

func hook(point, name, script string) config.Hook {
	return config.Hook{Point: point, Name: name, Command: []string{"sh", "-c", script}, Timeout: config.Duration(5 * time.Second)}
}

// A pre-dispatch hook can rewrite the instruction a worker gets; a hook
// that fails is skipped with its reason and changes nothing; post-accept
// and session-start hooks read the route of their moment. Every run of a
// hook is in the event log.
func TestLifecycleHooks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig(`read line; echo "worker got: $line"`)
	cfg.Root = root
	cfg.Hooks = []config.Hook{
		hook(config.HookSessionStart, "hello", `tee session.json`),
		hook(config.HookPreDispatch, "broken", `echo "no such policy" >&2; exit 3`),
		hook(config.HookPreDispatch, "guard", `env | grep ^DAOKIT_ > guard.env; cat > /dev/null; echo '{"relay_context":{"latest_instruction":"check the tests first"}}'`),
		hook(config.HookPreDispatch, "garbage", `cat > /dev/null; echo 'not json'`),
		hook(config.HookPostAccept, "notify", `env | grep ^DAOKIT_ > notify.env; tee accepted.json`),
	}
	h := startHarness(t, root, cfg)
	ack := h.forward("refactor the parser")
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %s, want DONE", end.Payload.String("status"))
	}
	// session-start runs beside the first run; wait for its record.
	h.waitFor("session-start hook", func(e ledger.Event) bool {
		return op(e) == opHookRan && e.Payload.String("point") == config.HookSessionStart
	})
	events := h.events()

	var output string
	for _, e := range events {
		if e.TaskID == ack.TaskID && op(e) == opWorkerOutput {
			raw, _ := e.Payload.Get("lines")
			output += string(raw)
		}
	}
	if !strings.Contains(output, "worker got: check the tests first") {
		t.Errorf("the worker did not get the instruction the pre-dispatch hook wrote; output %s", output)
	}

	outcome := map[string]ledger.Event{}
	for _, e := range events {
		if op(e) == opHookRan || op(e) == opHookSkipped {
			outcome[e.Payload.String("hook")] = e
		}
	}
	for name, want := range map[string]string{"hello": opHookRan, "broken": opHookSkipped, "guard": opHookRan, "garbage": opHookSkipped, "notify": opHookRan} {
		e, ok := outcome[name]
		if !ok || op(e) != want {
			t.Errorf("hook %s: recorded %q, want %s", name, op(e), want)
		}
	}
	if e := outcome["broken"]; e.Payload.String("reason_code") != "HOOK_EXIT" || !strings.Contains(e.Payload.String("reason"), "no such policy") || e.Severity != ledger.SeverityWarn {
		t.Errorf("a failing hook's record: %v", e.Payload)
	}
	if e := outcome["garbage"]; e.Payload.String("reason_code") != "HOOK_INVALID_OUTPUT" {
		t.Errorf("a hook printing no JSON: %v", e.Payload)
	}
	if e := outcome["guard"]; e.TaskID != ack.TaskID || e.StepID != "S1" {
		t.Errorf("pre-dispatch record belongs to %s/%s, want %s/S1", e.TaskID, e.StepID, ack.TaskID)
	}

	var accepted struct {
		Relay struct {
			Instruction string       `json:"latest_instruction"`
			Route       ledger.Route `json:"controller_route_summary"`
		} `json:"relay_context"`
	}
	data, err := os.ReadFile(filepath.Join(root, "accepted.json"))
	if err != nil || json.Unmarshal(data, &accepted) != nil {
		t.Fatalf("post-accept hook input: %s, %v", data, err)
	}
	r := accepted.Relay
	if r.Route.TaskID != ack.TaskID || r.Route.RunID != ack.RunID || r.Route.ActiveStep != "S1" || r.Route.ActiveLane != "worker" ||
		r.Route.NextAction != ledger.NextActionComplete || r.Instruction != "refactor the parser" {
		t.Errorf("post-accept hook read %+v", r)
	}
	// A step's hooks run with the step's environment, as its agent does.
	for _, f := range []string{"guard.env", "notify.env"} {
		env, _ := os.ReadFile(filepath.Join(root, f))
		for _, want := range []string{"DAOKIT_TASK_ID=" + ack.TaskID, "DAOKIT_RUN_ID=" + ack.RunID, "DAOKIT_STEP_ID=S1", "DAOKIT_ROOT=" + root} {
			if !strings.Contains(string(env), want+"\n") {
				t.Errorf("%s lacks %s:\n%s", f, want, env)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(root, "session.json")); err != nil || !json.Valid(data) {
		t.Errorf("session-start hook input: %q, %v", data, err)
	}
	for _, e := range events {
		if err := e.Validate(); err != nil {
			t.Errorf("event %s does not validate: %v", op(e), err)
		}
	}
}
