package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// takeoverRecord is what one takeover left in a ledger, in the shape
// both writers must share: the kinds of its events in order (type, or
// type/operation for SYSTEM) with each one's payload keys, the step it
// adopted, and what its register and pipeline say of it.
type takeoverRecord struct {
	kinds []string
	keys  [][]string
	step  string
}

// readTakeover finds the first LEASE_TAKEOVER of taskID in root and the
// records that carry its takeover_at, and checks them against the
// register and the pipeline: the reason is a stable code, every
// superseded token is TAKEN_OVER, the successor the event names holds a
// lease on the adopted step issued at the takeover, and the pipeline's
// fence for the step is the event's generation.
func readTakeover(t *testing.T, root, taskID string, reason vocab.Reason) takeoverRecord {
	t.Helper()
	var rec takeoverRecord
	var head *ledger.Event
	evs := events(t, root)
	for i := range evs {
		e := &evs[i]
		if e.TaskID != taskID {
			continue
		}
		if head == nil && e.EventType == ledger.EventLeaseTakeover {
			head = e
		}
		if head == nil || e.Payload.String("takeover_at") != head.Payload.String("takeover_at") {
			continue
		}
		kind := e.EventType
		if e.EventType == ledger.EventSystem {
			kind += "/" + e.Payload.String("operation")
		}
		rec.kinds = append(rec.kinds, kind)
		rec.keys = append(rec.keys, e.Payload.Keys())
	}
	if head == nil {
		t.Fatalf("no LEASE_TAKEOVER for %s", taskID)
	}
	if got := head.Payload.String("reason_code"); got != string(reason) || !slices.Contains(vocab.Reasons(), vocab.Reason(got)) {
		t.Errorf("reason_code %q, want the stable %s", got, reason)
	}
	adopted, superseded := payloadStrings(t, *head, "adopted_step_ids"), payloadStrings(t, *head, "superseded_tokens")
	if len(adopted) != 1 {
		t.Fatalf("adopted %v, want one step", adopted)
	}
	rec.step = adopted[0]
	at := head.Payload.String("takeover_at")
	pid := strconv.Itoa(payloadInt(*head, "successor_pid"))
	thread := head.Payload.String("successor_thread_id")
	snap := ledger.LoadSnapshot(root)
	successor := false
	for _, l := range snap.Leases.Value.Leases {
		if slices.Contains(superseded, l.LeaseToken) && l.Status != ledger.LeaseTakenOver {
			t.Errorf("superseded lease %s is %s, want TAKEN_OVER", l.LeaseToken, l.Status)
		}
		if l.StepID == rec.step && l.ThreadID == thread && strconv.Itoa(l.PID) == pid && l.CreatedAt == at {
			successor = true
		}
	}
	if len(superseded) == 0 || !successor {
		t.Errorf("superseded %v, a lease of %s/%s on %s issued at %s: %v", superseded, thread, pid, rec.step, at, successor)
	}
	fence := snap.Pipeline.Value.RoleLifecycle.Get("fence:" + rec.step)
	if gen := payloadInt(*head, "generation"); gen < 1 || fence != strconv.Itoa(gen) {
		t.Errorf("generation %d, the pipeline's fence:%s %q", gen, rec.step, fence)
	}
	if snap.Pipeline.Value.Succession.LastTakeoverAt != at {
		t.Errorf("last_takeover_at %q, want %s", snap.Pipeline.Value.Succession.LastTakeoverAt, at)
	}
	return rec
}

// payloadStrings decodes the list of strings e's payload holds under key.
func payloadStrings(t *testing.T, e ledger.Event, key string) []string {
	t.Helper()
	raw, _ := e.Payload.Get(key)
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s %s: %v", e.EventType, key, err)
	}
	return list
}

// TestTakeoverCommandAndControllerRecordTheSameTakeover: `daokit
// takeover` on an interrupted run and a controller replacing its hung
// worker record one takeover (heal.PlanTakeover): the same events in the
// same order with the same payload keys, a superseded lease and the
// successor's, the step's fence raised to the event's generation, and a
// handoff applied.
func TestTakeoverCommandAndControllerRecordTheSameTakeover(t *testing.T) {
	t.Parallel()
	manual := copyTree(t, filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))
	if r := run(t, "takeover", "--root", manual, "--successor-thread-id", "succ", "--successor-pid", "4242"); r.code != 0 {
		t.Fatalf("takeover: code %d %s", r.code, r.stderr)
	}
	byCommand := readTakeover(t, manual, "DKT-300", vocab.ReasonManualTakeover)

	root := t.TempDir()
	once := filepath.Join(root, "hung-once")
	cfg := strings.Replace(simConfig("500ms"),
		`command = ["{daokit}", "worker", "sim", "--duration", "500ms", "--lines", "6", "--", "{instruction}"]`,
		`command = ["sh", "-c", "if [ -f `+once+` ]; then exec {daokit} worker sim --duration 500ms -- \"$1\"; else touch `+once+`; exec {daokit} worker sim --hang-after 2 -- \"$1\"; fi", "sh", "{instruction}"]`, 1)
	run(t, "init", "--root", root)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "hang once, then work"))
	if end := finished(t, root, taskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("ended %s (%s), want DONE after the takeover", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	ctl.stop()
	byController := readTakeover(t, root, taskID, vocab.ReasonHeartbeatStale)

	want := []string{ledger.EventLeaseTakeover, ledger.EventSystem + "/" + string(vocab.OpLeaseAdopted),
		ledger.EventSystem + "/" + string(vocab.OpHandoffApplied)}
	if !slices.Equal(byCommand.kinds, want) || !slices.Equal(byController.kinds, want) {
		t.Fatalf("takeover events: command %v, controller %v, want %v", byCommand.kinds, byController.kinds, want)
	}
	for i := range want {
		if !slices.Equal(byCommand.keys[i], byController.keys[i]) {
			t.Errorf("%s payload keys: command %v, controller %v", want[i], byCommand.keys[i], byController.keys[i])
		}
	}
}
