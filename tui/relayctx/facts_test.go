package relayctx

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// clock is a settable clock for updated_at.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newAt(t *testing.T, store Store) (*Model, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	p := DefaultPolicy()
	p.Now = c.now
	m := New(store, p, nil)
	drain(m, m.Init(context.Background()))
	return m, c
}

func pipelineUpdate(status string, route ledger.Route) live.LedgerUpdate {
	snap := &ledger.Snapshot{}
	p := ledger.PipelineState{Goal: "ship it", Status: status, TaskID: route.TaskID, RunID: route.RunID}
	snap.Pipeline.Value = p
	return live.LedgerUpdate{Snapshot: snap}
}

func instructionEvent(at time.Time, text string) ledger.Event {
	e := ledger.Event{EventType: ledger.EventSystem, Timestamp: ledger.FormatTime(at), Severity: ledger.SeverityInfo}
	e.Payload = ledger.ObjectOf("operation", string(vocab.OpInstruction), "text", text)
	return e
}

// Constraints come from /constraint and from an instruction's
// "Constraint:" / "约束：" lines, are kept once, survive every compaction
// and a new window, and go only when removed.
func TestConstraintsAreKeptUntilRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := FileStore{Path: filepath.Join(t.TempDir(), FileName)}
	m, _ := newAt(t, store)
	n, cmd := m.AddConstraints(ctx, "no new dependencies")
	drain(m, cmd)
	if n != 1 {
		t.Fatalf("added %d", n)
	}
	m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", RunID: "R", StepID: "S1", Line: "old log"}})
	// A new instruction with logs present compacts.
	drain(m, m.Instruction(ctx, "fix the login page\nConstraint: keep the API stable\n  约束：不要改数据库\nconstraint: no new dependencies"))
	if m.Figures().Runs == 0 {
		t.Fatal("no compaction ran")
	}
	want := []string{"no new dependencies", "keep the API stable", "不要改数据库"}
	if got := m.Context().Facts().Constraints; !slices.Equal(got, want) {
		t.Fatalf("constraints after compaction %q, want %q", got, want)
	}
	gone, ok, cmd := m.RemoveConstraint(ctx, 2)
	drain(m, cmd)
	if !ok || gone != "keep the API stable" {
		t.Fatalf("removed %q %v", gone, ok)
	}
	if _, ok, _ := m.RemoveConstraint(ctx, 3); ok {
		t.Fatal("removed a constraint that is not there")
	}
	drain(m, m.Flush(ctx))
	again, _ := newAt(t, store)
	want = []string{"no new dependencies", "不要改数据库"}
	if got := again.Constraints(); !slices.Equal(got, want) {
		t.Fatalf("a new window has %q, want %q", got, want)
	}
}

// An instruction another client sent (daokit send --constraint) brings
// its constraints in through the ledger; one recorded before the keep set
// was last stamped does not bring back a constraint removed since.
func TestLedgerInstructionsBringConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, c := newAt(t, nil)
	c.t = c.t.Add(time.Minute)
	sent := instructionEvent(c.t, "refactor\nConstraint: tests first")
	drain(m, m.Ledger(ctx, live.LedgerUpdate{Events: []ledger.Event{sent}}))
	if got := m.Constraints(); !slices.Equal(got, []string{"tests first"}) {
		t.Fatalf("constraints %q", got)
	}
	if got := m.Context().Facts().LatestInstruction; got != "refactor\nConstraint: tests first" {
		t.Fatalf("latest instruction %q", got)
	}
	c.t = c.t.Add(time.Minute)
	_, _, cmd := m.RemoveConstraint(ctx, 1)
	drain(m, cmd)
	// The ledger read again (a new window, a feed restart).
	drain(m, m.Ledger(ctx, live.LedgerUpdate{Initial: true, Events: []ledger.Event{sent}}))
	if got := m.Constraints(); len(got) != 0 {
		t.Fatalf("a removed constraint came back: %q", got)
	}
}

// The run an instruction starts can reach the window before the
// instruction's own event: the keep set is stamped with the new goal
// and route first. The instruction's constraints still count: only a
// removal (or the file read, a hand edit) sets the line they must be
// after. (CI once saw the goal of "send --constraint" and not its
// constraint.)
func TestAnInstructionSeenAfterItsRunStillBringsItsConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, c := newAt(t, nil)
	c.t = c.t.Add(time.Minute)
	sent := instructionEvent(c.t, "hang once more\nConstraint: no new dependencies")
	c.t = c.t.Add(time.Second)
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusExecute, ledger.Route{TaskID: "T2", RunID: "R2"})))
	drain(m, m.Ledger(ctx, live.LedgerUpdate{Events: []ledger.Event{sent}}))
	if got := m.Constraints(); !slices.Equal(got, []string{"no new dependencies"}) {
		t.Fatalf("constraints %q, want the instruction's", got)
	}
}

// The keep set follows the ledger at once: BLOCKED is saved while the run
// is blocked, without waiting for a compaction; a snapshot that changes
// nothing does not rewrite the file.
func TestBlockersAreSavedLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	m, c := newAt(t, FileStore{Path: path})
	route := ledger.Route{TaskID: "DK-1", RunID: "R-1"}
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusExecute, route)))
	drain(m, m.Flush(ctx))
	c.t = c.t.Add(time.Second)
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusBlocked, route)))
	drain(m, m.Flush(ctx))
	if m.Figures().Runs != 0 {
		t.Fatalf("this test wants no compaction, %d ran", m.Figures().Runs)
	}
	saved := readSaved(t, path)
	if !slices.Equal(saved.CurrentBlockers, []string{"status=BLOCKED"}) || saved.UpdatedAt != ledger.FormatTime(c.t) {
		t.Fatalf("saved context while blocked: %+v", saved)
	}
	writes := m.Writes()
	info, _ := os.Stat(path)
	for range 3 {
		drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusBlocked, route)))
		drain(m, m.Relay(ctx, live.RelayUpdate{Route: &route}))
		drain(m, m.Flush(ctx))
	}
	if m.Writes() != writes {
		t.Fatalf("unchanged facts rewrote the file: %d writes, want %d", m.Writes(), writes)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(info.ModTime()) {
		t.Error("the file's time changed")
	}
	c.t = c.t.Add(time.Second)
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusDone, route)))
	drain(m, m.Flush(ctx))
	if got := readSaved(t, path).CurrentBlockers; got == nil || len(got) != 0 {
		t.Fatalf("blockers after the run ended: %q", got)
	}
}

type savedShape struct {
	UserProfile       json.RawMessage `json:"user_profile"`
	Constraints       []string        `json:"constraints"`
	CurrentBlockers   []string        `json:"current_blockers"`
	LatestInstruction string          `json:"latest_instruction"`
	UpdatedAt         string          `json:"updated_at"`
}

func readSaved(t *testing.T, path string) savedShape {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Relay savedShape `json:"relay_context"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return doc.Relay
}

// Worker output of many steps never grows the context past its cap, even
// with compaction off.
func TestListsAreCapped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New(nil, Policy{Manual: true}, nil)
	drain(m, m.Init(ctx))
	for step := range 30 {
		for line := range 10 {
			m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", RunID: "R", StepID: "S" + string(rune('A'+step)), Line: strings.Repeat("x", line+1)}})
		}
	}
	if n := len(m.Context().Entries(compact.ExecutionLogs)); n != listCap[compact.ExecutionLogs] {
		t.Fatalf("%d execution logs kept, want the cap %d", n, listCap[compact.ExecutionLogs])
	}
	// A file written before the cap (it once held 88 logs) is cut on load.
	path := filepath.Join(t.TempDir(), FileName)
	var logs []string
	for i := range 88 {
		logs = append(logs, `{"event_type":"WORKER_OUTPUT","line":"`+strings.Repeat("y", i+1)+`"}`)
	}
	if err := os.WriteFile(path, []byte(`{"execution_logs":[`+strings.Join(logs, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	old := New(FileStore{Path: path}, Policy{Manual: true}, nil)
	drain(old, old.Init(ctx))
	drain(old, old.Flush(ctx))
	data, _ := os.ReadFile(path)
	var doc struct {
		Logs []json.RawMessage `json:"execution_logs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Logs) != listCap[compact.ExecutionLogs] {
		t.Fatalf("saved %d logs (%v), want %d", len(doc.Logs), err, listCap[compact.ExecutionLogs])
	}
}

// The self-check reads the saved context when it loads and each
// compaction's result: a blockers field removed by hand is named until a
// compaction fills it from the ledger again.
func TestSelfCheckNamesAMissingFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	doc := `{"relay_context": {"goal": "g", "constraints": [], "latest_instruction": "i", "controller_route_summary": {"task_id": "T"}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := newAt(t, FileStore{Path: path})
	if got := m.Missing(); !slices.Equal(got, []compact.Fact{compact.FactBlockers}) {
		t.Fatalf("self-check on load: %v", got)
	}
	m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", Line: "log"}})
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusExecute, ledger.Route{TaskID: "T"})))
	drain(m, m.Instruction(ctx, "next"))
	if m.Figures().Runs == 0 || len(m.Missing()) != 0 {
		t.Fatalf("after a compaction with the ledger's blockers: runs %d, missing %v", m.Figures().Runs, m.Missing())
	}
}

// Removing the blockers field by hand while the window runs: the next
// flush reads the edit instead of overwriting it, the self-check marks
// the blockers, and the next compaction takes them from the ledger again.
func TestHandEditIsReadAndSelfChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	m, c := newAt(t, FileStore{Path: path})
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusBlocked, ledger.Route{TaskID: "DK-1", RunID: "R"})))
	drain(m, m.Instruction(ctx, "go"))
	_, cmd := m.AddConstraints(ctx, "keep the API stable")
	drain(m, cmd)
	drain(m, m.Flush(ctx))
	if got := readSaved(t, path).CurrentBlockers; !slices.Equal(got, []string{"status=BLOCKED"}) {
		t.Fatalf("saved blockers %q", got)
	}
	if len(m.Missing()) != 0 {
		t.Fatalf("missing before the edit: %v", m.Missing())
	}
	var doc map[string]map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["relay_context"], "current_blockers")
	edit, _ := json.Marshal(doc)
	if err := os.WriteFile(path, edit, 0o600); err != nil {
		t.Fatal(err)
	}
	// Something recorded meanwhile makes the context dirty: the save
	// finds the edit and reads it rather than writing over it.
	c.t = c.t.Add(time.Second)
	late := m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "DK-1", RunID: "R", StepID: "S1", Line: "late"}})
	drain(m, m.Flush(ctx))
	// The compaction that line started ran on the old context: its
	// result is dropped, the edit stands.
	drain(m, late)
	if got := m.Missing(); !slices.Equal(got, []compact.Fact{compact.FactBlockers}) {
		t.Fatalf("self-check after the edit: %v", got)
	}
	if got, _ := os.ReadFile(path); string(got) != string(edit) {
		t.Fatalf("the edit was overwritten:\n%s", got)
	}
	if got := m.Constraints(); !slices.Equal(got, []string{"keep the API stable"}) {
		t.Fatalf("constraints after the edit %q", got)
	}
	// The same ledger facts again do not refill it; a compaction does.
	drain(m, m.Ledger(ctx, pipelineUpdate(ledger.StatusBlocked, ledger.Route{TaskID: "DK-1", RunID: "R"})))
	if len(m.Missing()) != 1 {
		t.Fatalf("an unchanged ledger cleared the mark: %v", m.Missing())
	}
	drain(m, m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "DK-1", RunID: "R", StepID: "S1", Line: "log"}}))
	runs := m.Figures().Runs
	drain(m, m.Instruction(ctx, "again"))
	if m.Figures().Runs <= runs || len(m.Missing()) != 0 {
		t.Fatalf("after a compaction: runs %d, missing %v", m.Figures().Runs, m.Missing())
	}
	drain(m, m.Flush(ctx))
	if got := readSaved(t, path).CurrentBlockers; !slices.Equal(got, []string{"status=BLOCKED"}) {
		t.Fatalf("saved blockers after the compaction %q", got)
	}
}

// Instruction events that arrive before the saved context was read wait
// for its stamp: a constraint removed in an earlier window stays removed,
// one sent while no window ran is taken.
func TestEarlyInstructionEventsWaitForTheFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	stamp := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	doc := `{"relay_context": {"constraints": ["kept"], "updated_at": "` + ledger.FormatTime(stamp) + `"}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: stamp.Add(time.Hour)}
	p := DefaultPolicy()
	p.Now = c.now
	m := New(FileStore{Path: path}, p, nil)
	load := m.Init(ctx)
	old := instructionEvent(stamp.Add(-time.Minute), "x\nConstraint: removed long ago")
	sent := instructionEvent(stamp.Add(time.Minute), "y\nConstraint: sent while closed")
	drain(m, m.Ledger(ctx, live.LedgerUpdate{Initial: true, Events: []ledger.Event{old, sent}}))
	drain(m, load)
	if got := m.Constraints(); !slices.Equal(got, []string{"kept", "sent while closed"}) {
		t.Fatalf("constraints %q", got)
	}
}
