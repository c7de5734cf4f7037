package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

// TestSessionHandleResumesOnlyItsOwnStep runs two steps on one lane with
// a resume_command. S1 reports handle h1 and finishes; S2's first worker
// dies before reporting any handle, so the lane's latest handle is S1's:
// resuming it would continue the wrong conversation. S2 must start fresh
// (and say why), and resume only its own handle h2 after its next crash.
func TestSessionHandleResumesOnlyItsOwnStep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `n=$(cat "$DAOKIT_STEP_ID.n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DAOKIT_STEP_ID.n"
case "$DAOKIT_STEP_ID.$n" in
S1.1) echo '@daokit {"type":"session","id":"h1"}'; exit 0 ;;
S2.1) echo 'no handle yet'; exit 3 ;;
S2.*) echo '@daokit {"type":"session","id":"h2"}'; exit 3 ;;
esac`
	cfg := shellConfig(script)
	cfg.Lanes[0].Dir = dir
	cfg.Lanes[0].ResumeCommand = []string{"sh", "-c", `echo "resumed {session} in {step_id}" >> resumed.txt`}
	cfg.Workflow.Steps = []config.Step{config.DefaultStep(config.DefaultLane), config.DefaultStep(config.DefaultLane)}
	cfg.Workflow.Steps[1].ID = "S2"
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("two steps, one lane")
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	var bound, decisions []string
	for _, e := range h.events() {
		switch op(e) {
		case opSessionBound:
			bound = append(bound, e.StepID+":"+e.Payload.String("session_id")+"@"+e.Payload.String("dir"))
		case opSessionResume:
			decisions = append(decisions, e.StepID+":"+e.Payload.String("decision")+":"+e.Payload.String("session_id")+":"+e.Payload.String("reason_code"))
		}
	}
	if want := "S1:h1@" + dir + " S2:h2@" + dir; strings.Join(bound, " ") != want {
		t.Errorf("bound %v, want %s", bound, want)
	}
	want := "S2:fresh:h1:" + ReasonSessionOtherStep + " S2:fresh:h1:" + ReasonSessionOtherStep + " S2:resume:h2:"
	if got := strings.Join(decisions, " "); got != want {
		t.Errorf("decisions\n got %s\nwant %s", got, want)
	}
	if got := readText(t, filepath.Join(dir, "resumed.txt")); got != "resumed h2 in S2\n" {
		t.Errorf("resumed.txt = %q", got)
	}
}

func TestChooseResumeChecksStepAndFolder(t *testing.T) {
	lane := config.DefaultLaneConfig("agent", config.KindClaude)
	lane.Command = []string{"claude", "-p", "{instruction}"}
	p := ledger.NewPipelineState(time.Unix(0, 0))
	p.RoleLifecycle = p.RoleLifecycle.With(keySession+"agent", "abc").With(keySessionStep+"agent", "S1").With(keySessionDir+"agent", "/w")
	if c := chooseResume(&p, lane, "S1", "/w"); c != (resumeChoice{}) {
		t.Errorf("own command, no resume_command: %+v", c)
	}
	// A default agent lane resumes with its kind's resume command.
	if c := chooseResume(&p, config.DefaultLaneConfig("agent", config.KindClaude), "S1", "/w"); c != (resumeChoice{handle: "abc"}) {
		t.Errorf("default claude lane: %+v", c)
	}
	p = ledger.NewPipelineState(time.Unix(0, 0))
	lane.ResumeCommand = []string{"claude", "--resume", "{session}"}
	if c := chooseResume(&p, lane, "S1", "/w"); c != (resumeChoice{}) {
		t.Errorf("no handle: %+v", c)
	}
	p.RoleLifecycle = p.RoleLifecycle.With(keySession+"agent", "abc").With(keySessionStep+"agent", "S1").With(keySessionDir+"agent", "/w")
	for _, tt := range []struct {
		step, dir string
		want      resumeChoice
	}{
		{"S1", "/w", resumeChoice{handle: "abc"}},
		{"S2", "/w", resumeChoice{why: ReasonSessionOtherStep, other: "abc"}},
		{"S1", "/elsewhere", resumeChoice{why: ReasonSessionOtherFolder, other: "abc"}},
	} {
		if got := chooseResume(&p, lane, tt.step, tt.dir); got != tt.want {
			t.Errorf("%s in %s: %+v, want %+v", tt.step, tt.dir, got, tt.want)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
