package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// TestOperatorCommandsAreCarriedOutByTheLiveController is the Python
// CLI's order on a root a live controller holds: `run`, then
// `takeover`, `handoff --create`, `handoff --apply` and `run` again.
// Each is carried out by that controller (it keeps the root's lock
// throughout, so the CLI never writes, and the ledger shows its
// records), each prints what the same command prints locally once the
// controller is gone, a takeover resent after its connection dropped is
// done once, and a window's observing connection cannot send one.
func TestOperatorCommandsAreCarriedOutByTheLiveController(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("200ms"))
	ctl := startController(t, root)
	holder := func() int {
		pid, err := ledger.LockHolder(root)
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
	if h := holder(); h != ctl.pid() {
		t.Fatalf("lock holder %d, want the controller %d", h, ctl.pid())
	}

	r := run(t, "run", "--root", root, "--task-id", "DKT-100", "--run-id", "RUN-1", "--goal", "Implement the feature")
	if r.code != 0 || r.stdout != "task_id=DKT-100 run_id=RUN-1 status=DONE current_step=S1\n" {
		t.Fatalf("run: %+v", r)
	}
	took := run(t, "takeover", "--root", root, "--successor-thread-id", "thread-succ", "--successor-pid", "4242", "--lease-ttl", "600")
	if took.code != 0 || took.stderr != "" {
		t.Fatalf("takeover: %+v", took)
	}
	var tk struct {
		TaskID     string `json:"task_id"`
		RunID      string `json:"run_id"`
		TakeoverAt string `json:"takeover_at"`
	}
	if err := json.Unmarshal([]byte(took.stdout), &tk); err != nil || tk.TaskID != "DKT-100" || tk.RunID != "RUN-1" {
		t.Fatalf("takeover printed %q: %v", took.stdout, err)
	}
	created := run(t, "handoff", "--root", root, "--create")
	if created.code != 0 || created.stderr != "" {
		t.Fatalf("handoff --create: %+v", created)
	}
	pkg, err := ledger.ParseHandoffPackage([]byte(created.stdout))
	if err != nil || pkg.TaskID != "DKT-100" {
		t.Fatalf("handoff --create printed %q: %v", created.stdout, err)
	}
	if onDisk := string(readState(t, root, ledger.HandoffFile)); onDisk != created.stdout {
		t.Errorf("the package written differs from the one printed:\n%s\n%s", onDisk, created.stdout)
	}
	applied := run(t, "handoff", "--root", root, "--apply")
	if applied.code != 0 || applied.stderr != "" || !strings.Contains(applied.stdout, `"task_id": "DKT-100"`) {
		t.Fatalf("handoff --apply: %+v", applied)
	}
	again := run(t, "run", "--root", root, "--task-id", "DKT-100", "--run-id", "RUN-1", "--goal", "Implement the feature")
	// The package of a finished run resumes no step: the pipeline's
	// current step is then None, as the Python tool's is.
	if again.code != 0 || !strings.HasPrefix(again.stdout, "task_id=DKT-100 run_id=RUN-1 status=DONE current_step=") {
		t.Fatalf("run again: %+v", again)
	}
	if h := holder(); h != ctl.pid() {
		t.Fatalf("lock holder %d after the commands, want the controller %d", h, ctl.pid())
	}

	// The controller's records: each forwarded command once, answered
	// ok, and the takeover's own records with the time it printed.
	forwarded := map[string]int{}
	takeovers := 0
	for _, e := range events(t, root) {
		if op(e) == "OPERATION_FORWARDED" {
			if e.Payload.String("result") != "ok" {
				t.Errorf("forwarded %s answered %s", e.Payload.String("kind"), e.Payload.String("result"))
			}
			forwarded[e.Payload.String("kind")]++
		}
		if e.EventType == ledger.EventLeaseTakeover && e.TaskID == "DKT-100" {
			takeovers++
			if at := e.Payload.String("takeover_at"); at != tk.TakeoverAt {
				t.Errorf("LEASE_TAKEOVER at %s, the command printed %s", at, tk.TakeoverAt)
			}
		}
	}
	if forwarded["takeover"] != 1 || forwarded["handoff_create"] != 1 || forwarded["handoff_apply"] != 1 || takeovers != 1 {
		t.Fatalf("forwarded %v, %d LEASE_TAKEOVER; want one of each", forwarded, takeovers)
	}
	snap := ledger.LoadSnapshot(root)
	p := snap.Pipeline.Value
	if p.Succession.LastTakeoverAt != tk.TakeoverAt || p.RoleLifecycle.Get("handoff_next_action") == "" {
		t.Errorf("pipeline after the commands: succession %+v, handoff_next_action %q", p.Succession, p.RoleLifecycle.Get("handoff_next_action"))
	}

	// A resend after a dropped connection: the request is written, the
	// connection closed unanswered, and the same id sent again.
	sock, err := relay.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	const id = "resend-takeover-1"
	line := `{"v":1,"id":"` + id + `","type":"operate","action":"forward","body":{"kind":"takeover","task_id":"DKT-100","run_id":"RUN-1","successor_thread_id":"thread-2","successor_pid":4243}}` + "\n"
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	first := waitEvent(t, root, "the dropped takeover's record", 20*time.Second, func(e ledger.Event) bool {
		return op(e) == "OPERATION_FORWARDED" && e.Payload.String("message_id") == id
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	env := relay.Envelope{ID: id, Type: relay.TypeOperate, Action: relay.ActionForward}
	if err := env.SetBody(relay.Operation{Kind: relay.OperateTakeover, TaskID: "DKT-100", RunID: "RUN-1", SuccessorThreadID: "thread-2", SuccessorPID: 4243}); err != nil {
		t.Fatal(err)
	}
	reply, err := client.Send(ctx, env)
	var out relay.Outcome
	if err != nil || reply.DecodeBody(&out) != nil || !out.Duplicate || out.EventID != first.EventID || out.Failure != nil {
		t.Fatalf("resend: %+v %v", out, err)
	}
	takeovers = 0
	var last string
	for _, e := range events(t, root) {
		if e.EventType == ledger.EventLeaseTakeover && e.TaskID == "DKT-100" {
			takeovers++
			last = e.Payload.String("takeover_at")
		}
	}
	if takeovers != 2 || !strings.Contains(out.Output, `"takeover_at": "`+last+`"`) {
		t.Fatalf("%d LEASE_TAKEOVER after the dropped takeover and its resend (want 2: the first command's and this one's); resend printed %q, last at %s", takeovers, out.Output, last)
	}

	// A window's connection observes; it cannot carry out a command.
	window, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer window.Close()
	if _, err := window.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := window.Operate(ctx, relay.Operation{Kind: relay.OperateHandoffCreate}); relay.CodeOf(err) != relay.CodeObserving {
		t.Fatalf("operate from an observing connection: %v", err)
	}

	if py := os.Getenv(pythonSrcEnv); py != "" {
		pythonStatusAgrees(t, py, root)
	}

	// Resent to the next controller (the first one stopped before the
	// client heard it): answered from the log, not done again.
	window.Close()
	client.Close()
	ctl.stop()
	next := startController(t, root)
	client, err = relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	reply, err = client.Send(ctx, env)
	var again2 relay.Outcome
	if err != nil || reply.DecodeBody(&again2) != nil || !again2.Duplicate || again2.EventID != first.EventID || again2.Output != out.Output {
		t.Fatalf("resend to the next controller: %+v %v, want %+v", again2, err, out)
	}
	if n := countTakeovers(t, root, "DKT-100"); n != 2 {
		t.Fatalf("%d LEASE_TAKEOVER after the resend to the next controller, want 2", n)
	}
	client.Close()

	// The same commands run locally once no controller holds the root
	// print the same, but for their times and the package's hash.
	next.stop()
	if h := holder(); h != 0 {
		t.Fatalf("lock still held by %d", h)
	}
	pairs := []struct {
		name   string
		remote result
		args   []string
	}{
		{"takeover", took, []string{"takeover", "--root", root, "--successor-thread-id", "thread-succ", "--successor-pid", "4242", "--lease-ttl", "600"}},
		{"handoff --create", created, []string{"handoff", "--root", root, "--create"}},
		{"handoff --apply", applied, []string{"handoff", "--root", root, "--apply"}},
	}
	for _, pr := range pairs {
		local := run(t, pr.args...)
		if local.code != pr.remote.code || local.stderr != pr.remote.stderr || unstamped(local.stdout) != unstamped(pr.remote.stdout) {
			t.Errorf("%s: forwarded and local differ:\n%+v\n%+v", pr.name, pr.remote, local)
		}
	}
}

// countTakeovers counts the LEASE_TAKEOVER events of task taskID.
func countTakeovers(t *testing.T, root, taskID string) int {
	t.Helper()
	n := 0
	for _, e := range events(t, root) {
		if e.EventType == ledger.EventLeaseTakeover && e.TaskID == taskID {
			n++
		}
	}
	return n
}

// stamps are what differs between two runs of one command: times and
// the hash of a package that holds one.
var stamps = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+\+00:00"|"[0-9a-f]{64}"`)

func unstamped(s string) string { return stamps.ReplaceAllString(s, `"…"`) }

// TestForwardedCommandFailsAsLocally: a package for another run, applied
// while a controller holds the root, fails in the local command's words,
// code and exit status, and changes nothing.
func TestForwardedCommandFailsAsLocally(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("200ms"))
	ctl := startController(t, root)
	if r := run(t, "run", "--root", root, "--task-id", "DKT-1", "--run-id", "RUN-1", "--goal", "first"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	if r := run(t, "handoff", "--root", root, "--create"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	if r := run(t, "run", "--root", root, "--task-id", "DKT-2", "--run-id", "RUN-2", "--goal", "second"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	remote := run(t, "handoff", "--root", root, "--apply")
	ctl.stop()
	local := run(t, "handoff", "--root", root, "--apply")
	if remote.code != 1 || remote != local || !strings.HasPrefix(remote.stderr, "E_HANDOFF_FAILED: ") {
		t.Fatalf("forwarded %+v, local %+v", remote, local)
	}
}

// pythonStatusAgrees runs the Python tool's `status --json` on root and
// wants the pipeline and leases daokit's `status --json` shows.
func pythonStatusAgrees(t *testing.T, src, root string) {
	t.Helper()
	cmd := pythonCmd(src, "status", "--root", root, "--json")
	pyOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("python status --json: %v", err)
	}
	mine := run(t, "status", "--root", root, "--json")
	if mine.code != 0 {
		t.Fatalf("status --json: %+v", mine)
	}
	var py, dk struct {
		Pipeline map[string]any   `json:"pipeline_state"`
		Leases   []map[string]any `json:"leases"`
	}
	if err := json.Unmarshal(pyOut, &py); err != nil {
		t.Fatalf("python status: %v\n%s", err, pyOut)
	}
	if err := json.Unmarshal([]byte(mine.stdout), &dk); err != nil {
		t.Fatalf("status: %v\n%s", err, mine.stdout)
	}
	for _, k := range []string{"task_id", "run_id", "status", "current_step", "succession"} {
		a, _ := json.Marshal(py.Pipeline[k])
		b, _ := json.Marshal(dk.Pipeline[k])
		if string(a) != string(b) {
			t.Errorf("status --json %s: python %s, daokit %s", k, a, b)
		}
	}
	if len(py.Leases) != len(dk.Leases) {
		t.Errorf("status --json: python lists %d leases, daokit %d", len(py.Leases), len(dk.Leases))
	}
	t.Logf("python status --json agrees: %v %v %v, %d leases", py.Pipeline["task_id"], py.Pipeline["status"], py.Pipeline["succession"], len(py.Leases))
}
