package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
)

// TestMaxIterationsBlockSaysSo: a loop that used its iterations ends
// BLOCKED, and everything that says why says max iterations: the run's
// end, the heartbeat (once RESTART_LIMIT_REACHED for every block), status
// in words and in JSON, and send --wait, which words what comes next
// instead of showing "await_user".
func TestMaxIterationsBlockSaysSo(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(loopConfig, "max_iterations = 3", "max_iterations = 1", 1)
	cfg = strings.Replace(cfg, "judge_command = "+tomlArray(drillJudge), `judge_command = ["false"]`, 1)
	root := newRoot(t, cfg)
	ctl := startController(t, root)
	defer ctl.stop()
	r := run(t, "send", "--root", root, "--lang", "en", "--wait", "never good enough")
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, "await_user") || !strings.Contains(r.stdout+r.stderr, "waiting for you") {
		t.Fatalf("send --wait: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	finished := false
	for _, e := range events(t, root) {
		if op(e) == "RUN_FINISHED" {
			finished = true
			if e.Payload.String("status") != "BLOCKED" || e.Payload.String("reason_code") != "MAX_ITERATIONS_REACHED" {
				t.Errorf("the run ended %v", e.Payload)
			}
		}
	}
	if !finished {
		t.Fatal("no RUN_FINISHED")
	}
	for _, lang := range []string{"en", "zh-CN"} {
		st := run(t, "status", "--root", root, "--lang", lang)
		if strings.Contains(st.stdout, "RESTART_LIMIT_REACHED") || !strings.Contains(st.stdout, "(MAX_ITERATIONS_REACHED)") {
			t.Errorf("%s: status does not say max iterations:\n%s", lang, st.stdout)
		}
		// The step table words the blocked step's state (once shown raw,
		// failed:max_iterations_reached) in the reader's language, with
		// the stored value beside it.
		stored := vocab.StepFailed.With(string(vocab.ReasonMaxIterations))
		want := stored.Label(i18n.MustNew(lang)) + " (" + string(stored) + ")"
		if !strings.Contains(st.stdout, want) {
			t.Errorf("%s: the step table lacks %q:\n%s", lang, want, st.stdout)
		}
	}
	if st := run(t, "status", "--root", root, "--lang", "en"); !strings.Contains(st.stdout, "max iterations reached (MAX_ITERATIONS_REACHED)") {
		t.Errorf("status does not word the reason:\n%s", st.stdout)
	}
	js := run(t, "status", "--root", root, "--json")
	var doc struct {
		Heartbeat struct {
			Status     string `json:"status"`
			ReasonCode string `json:"reason_code"`
		} `json:"heartbeat_status"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, js.stdout)
	}
	if doc.Heartbeat.Status != "BLOCKED" || doc.Heartbeat.ReasonCode != "MAX_ITERATIONS_REACHED" {
		t.Errorf("heartbeat %+v, want BLOCKED for MAX_ITERATIONS_REACHED", doc.Heartbeat)
	}
}
