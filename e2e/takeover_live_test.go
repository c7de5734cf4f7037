package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// gatedWorker is a worker in the daokit protocol that counts its runs
// in runs-<task>.log. Its first run blocks on the fifo "gate" (never
// opened by the test: only a stop ends it); with "finished" in its
// instruction it first prints its result, as a worker that did its work
// and has not exited yet. Later runs finish at once.
const gatedWorker = `root=$1; log="$root/runs-$DAOKIT_TASK_ID.log"
echo "start $$" >> "$log"
n=$(grep -c '^start' "$log")
echo '@daokit {"type":"progress","message":"working"}'
if [ "$n" = 1 ]; then
  case "$2" in *finished*) echo '@daokit {"type":"result","summary":"done before the takeover"}' ;; esac
  read _ < "$root/gate"
fi
echo '@daokit {"type":"result","summary":"done on run '"$n"'"}'`

// gatedConfig runs gatedWorker; a blocked worker is silent, so the
// liveness thresholds are far beyond the test.
func gatedConfig(t *testing.T) string {
	cmd, err := json.Marshal([]string{"sh", "-c", gatedWorker, "sh", "{root}", "{instruction}"})
	if err != nil {
		t.Fatal(err)
	}
	return `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "5m"
stale_after = "10m"

[lease]
ttl = "2s"

[restart]
max_restarts = 5
window = "10m"
backoff_base = "50ms"
backoff_cap = "200ms"

[[lanes]]
name = "worker"
kind = "sim"
command = ` + string(cmd) + `
stop_grace = "200ms"
`
}

// workerRuns counts the runs gatedWorker logged for task.
func workerRuns(t *testing.T, root, task string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "runs-"+task+".log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "start ")
}

// stepFence is the fencing generation the pipeline file gives step of
// task, once the file shows that task (it is written soon after the
// events).
func stepFence(t *testing.T, root, task, step string) int {
	t.Helper()
	var p ledger.PipelineState
	waitFor(t, 20*time.Second, "the pipeline of "+task, func() bool {
		doc := ledger.LoadSnapshot(root).Pipeline
		p = doc.Value
		return doc.Err == nil && p.TaskID == task
	})
	return heal.Fence(&p, step)
}

// TestForwardedTakeoverOfARunningStepIsCarriedOut is the Python CLI's
// order on a step a live controller is running: `daokit takeover` is
// carried out by that controller, not refused. Its worker's tree is
// gone when the command answers, one LEASE_TAKEOVER is recorded with
// the step's fencing generation raised, the command prints the takeover
// as it prints it locally, and the run resumes the step and ends DONE
// once: a worker stopped before its result runs again (twice in all),
// one that had printed its result is read back, not run again, and a
// resent takeover is answered without a second one.
func TestForwardedTakeoverOfARunningStepIsCarriedOut(t *testing.T) {
	t.Parallel()
	root := newRoot(t, gatedConfig(t))
	if err := syscall.Mkfifo(filepath.Join(root, "gate"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctl := startController(t, root)
	defer ctl.stop()

	t.Run("unfinished", func(t *testing.T) {
		sent := run(t, "send", "--root", root, "a long job")
		taskID := ackTask(t, sent)
		runID := strings.TrimPrefix(strings.Fields(sent.stdout)[1], "run_id=")
		pid := startedPID(t, root, taskID)
		fence := stepFence(t, root, taskID, "S1")
		// The Python CLI's order on the running step: a package created
		// and applied (it resumes the step the run is on: the run goes on
		// as it was), then the takeover.
		if created := run(t, "handoff", "--root", root, "--create"); created.code != 0 {
			t.Fatalf("handoff --create: %+v", created)
		}
		applied := run(t, "handoff", "--root", root, "--apply")
		var plan struct {
			TaskID string `json:"task_id"`
			Resume string `json:"resume_step_id"`
		}
		if applied.code != 0 || applied.stderr != "" || json.Unmarshal([]byte(applied.stdout), &plan) != nil || plan.TaskID != taskID || plan.Resume != "S1" {
			t.Fatalf("handoff --apply of the running step: %+v", applied)
		}
		if !groupAlive(pid) {
			t.Fatalf("applying a package that resumes the running step stopped its worker %d", pid)
		}
		took := run(t, "takeover", "--root", root, "--task-id", taskID, "--run-id", runID,
			"--successor-thread-id", "thread-succ", "--successor-pid", "4242", "--lease-ttl", "600")
		if took.code != 0 || took.stderr != "" {
			t.Fatalf("takeover of a running step: %+v", took)
		}
		if groupAlive(pid) {
			t.Errorf("the worker %d of the step taken over is still alive when takeover answered", pid)
		}
		var printed struct {
			TaskID     string   `json:"task_id"`
			RunID      string   `json:"run_id"`
			TakeoverAt string   `json:"takeover_at"`
			Adopted    []string `json:"adopted_step_ids"`
		}
		if err := json.Unmarshal([]byte(took.stdout), &printed); err != nil || printed.TaskID != taskID || printed.RunID != runID {
			t.Fatalf("takeover printed %q: %v", took.stdout, err)
		}
		end := finished(t, root, taskID)
		if end.Payload.String("status") != ledger.StatusDone {
			t.Fatalf("the run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
		}
		checkTakenOver(t, root, taskID, printed.TakeoverAt, fence)
		if n := workerRuns(t, root, taskID); n != 2 {
			t.Errorf("the worker ran %d times, want 2 (stopped, then resumed)", n)
		}
		if py := os.Getenv(pythonSrcEnv); py != "" {
			pythonStatusAgrees(t, py, root)
		}
	})

	t.Run("finished", func(t *testing.T) {
		sent := run(t, "send", "--root", root, "a job finished before the takeover")
		taskID := ackTask(t, sent)
		runID := strings.TrimPrefix(strings.Fields(sent.stdout)[1], "run_id=")
		pid := startedPID(t, root, taskID)
		fence := stepFence(t, root, taskID, "S1")
		// Its result printed: the worker only waits to exit.
		dir, err := ledger.Layout{Root: root}.ArtifactDir(taskID, runID, "S1")
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, 20*time.Second, "the worker's result in its log", func() bool {
			data, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
			return strings.Contains(string(data), "done before the takeover")
		})
		// Sent twice with one id, as a client resends after a dropped
		// connection: carried out once.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		env := relay.Envelope{ID: "takeover-live-1", Type: relay.TypeOperate, Action: relay.ActionForward}
		if err := env.SetBody(relay.Operation{Kind: relay.OperateTakeover, TaskID: taskID, RunID: runID,
			SuccessorThreadID: "thread-succ", SuccessorPID: 4242, LeaseTTL: 600}); err != nil {
			t.Fatal(err)
		}
		var outs [2]relay.Outcome
		for i := range outs {
			reply, err := client.Send(ctx, env)
			if err != nil || reply.DecodeBody(&outs[i]) != nil || outs[i].Failure != nil {
				t.Fatalf("takeover (send %d): %+v %v", i+1, outs[i], err)
			}
		}
		if outs[0].Duplicate || !outs[1].Duplicate || outs[1].Output != outs[0].Output {
			t.Errorf("the resend was not answered as the first send: %+v / %+v", outs[0], outs[1])
		}
		if groupAlive(pid) {
			t.Errorf("the worker %d of the step taken over is still alive when takeover answered", pid)
		}
		var printed struct {
			TakeoverAt string `json:"takeover_at"`
		}
		if err := json.Unmarshal([]byte(outs[0].Output), &printed); err != nil {
			t.Fatal(err)
		}
		end := finished(t, root, taskID)
		if end.Payload.String("status") != ledger.StatusDone {
			t.Fatalf("the run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
		}
		checkTakenOver(t, root, taskID, printed.TakeoverAt, fence)
		if n := workerRuns(t, root, taskID); n != 1 {
			t.Errorf("the worker ran %d times, want once: its result was in its log", n)
		}
		back, ok := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "STEP_READ_BACK" })
		if !ok || back.Payload.String("why") != "result_succeeded" || payloadInt(back, "pid") != pid {
			t.Errorf("STEP_READ_BACK of the stopped worker: %+v (found %v)", back.Payload, ok)
		}
	})
}

// checkTakenOver checks the records of one forwarded takeover of task's
// running step S1, printed as taken over at at: one LEASE_TAKEOVER, at
// that time, that adopted S1 and raised its fencing generation above
// before; the step's attempt ended MANUAL_TAKEOVER; one RUN_FINISHED.
func checkTakenOver(t *testing.T, root, taskID, at string, before int) {
	t.Helper()
	var takeovers, finishes, stopped int
	for _, e := range events(t, root) {
		if e.TaskID != taskID {
			continue
		}
		switch {
		case e.EventType == ledger.EventLeaseTakeover:
			takeovers++
			if got := e.Payload.String("takeover_at"); got != at {
				t.Errorf("LEASE_TAKEOVER at %s, the command printed %s", got, at)
			}
			if g := payloadInt(e, "generation"); g != before+1 {
				t.Errorf("LEASE_TAKEOVER generation %d, want %d", g, before+1)
			}
			if adopted, _ := e.Payload.Get("adopted_step_ids"); !strings.Contains(string(adopted), `"S1"`) {
				t.Errorf("LEASE_TAKEOVER adopted %s, want S1", adopted)
			}
		case op(e) == "RUN_FINISHED":
			finishes++
		case e.EventType == ledger.EventStepFailed && e.Payload.String("reason_code") == "MANUAL_TAKEOVER":
			stopped++
		}
	}
	if takeovers != 1 || finishes != 1 || stopped != 1 {
		t.Errorf("%d LEASE_TAKEOVER, %d RUN_FINISHED, %d attempts ended MANUAL_TAKEOVER; want one of each", takeovers, finishes, stopped)
	}
	if got := stepFence(t, root, taskID, "S1"); got != before+1 {
		t.Errorf("fencing generation of S1: %d, want %d", got, before+1)
	}
}
