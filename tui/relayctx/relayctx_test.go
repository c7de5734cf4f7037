package relayctx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/hooks"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// drain runs cmd and the commands it leads to, feeding messages back.
func drain(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			queue = append(queue, m.Update(context.Background(), msg))
		}
	}
}

func TestFileStoreRoundTripIsAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := FileStore{Path: filepath.Join(dir, FileName)}
	if data, err := s.Load(context.Background()); data != nil || err != nil {
		t.Fatalf("Load of nothing: %q, %v", data, err)
	}
	for _, v := range []string{`{"a":1}`, `{"b":"修复"}`} {
		if err := s.Save(context.Background(), []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(context.Background())
		if err != nil || string(got) != v {
			t.Fatalf("Load: %q, %v; want %q", got, err, v)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestInstructionCompactsAndPersists(t *testing.T) {
	t.Parallel()
	store := FileStore{Path: filepath.Join(t.TempDir(), FileName)}
	m := New(store, DefaultPolicy(), nil)
	drain(m, m.Init(context.Background()))
	// Noise that compaction removes: repeated reports of one run (the
	// third identical report is a trigger of its own).
	ctx := context.Background()
	for range 5 {
		drain(m, m.Relay(ctx, live.RelayUpdate{Run: &live.RunState{TaskID: "T", RunID: "R", StepID: "S1", State: "generating"}}))
	}
	if f := m.Figures(); f.Runs == 0 || f.Before <= f.After {
		t.Fatalf("figures after repeated reports: %+v; want a compaction that shrank the context", f)
	}
	if n := len(m.Context().Entries(compact.StatusReports)); n > 2 {
		t.Errorf("%d status reports kept, want the repeats merged", n)
	}
	runs := m.Figures().Runs
	drain(m, m.Instruction(ctx, "修复登录页面"))
	if m.Figures().Runs != runs+1 {
		t.Errorf("a new instruction with logs present did not compact: %+v", m.Figures())
	}
	if got := m.Context().Facts().LatestInstruction; got != "修复登录页面" {
		t.Fatalf("latest instruction %q", got)
	}
	drain(m, m.Flush(context.Background()))
	if m.Err() != nil {
		t.Fatal(m.Err())
	}

	// A new window restores it.
	m2 := New(store, DefaultPolicy(), nil)
	drain(m2, m2.Init(context.Background()))
	if got := m2.Context().Facts().LatestInstruction; got != "修复登录页面" {
		t.Fatalf("restored latest instruction %q", got)
	}
}

func TestChangesDuringCompactionAreKept(t *testing.T) {
	t.Parallel()
	m := New(nil, DefaultPolicy(), nil)
	drain(m, m.Init(context.Background()))
	ctx := context.Background()
	m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", RunID: "R", StepID: "S1", Line: "early line"}})
	cmd := m.Instruction(ctx, "first")
	if cmd == nil {
		t.Fatal("an instruction did not start a compaction")
	}
	// While the compaction runs on its copy, more arrives.
	m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", RunID: "R", StepID: "S1", Line: "late line"}})
	drain(m, cmd)
	logs := m.Context().Entries(compact.ExecutionLogs)
	if len(logs) == 0 || !strings.Contains(string(logs[len(logs)-1]), "late line") {
		t.Fatalf("entry recorded during compaction lost: %s", logs)
	}
}

func TestAlarmTriggersCompaction(t *testing.T) {
	t.Parallel()
	m := New(nil, DefaultPolicy(), nil)
	drain(m, m.Init(context.Background()))
	snap := &ledger.Snapshot{}
	snap.Heartbeat.Value = ledger.HeartbeatStatus{Status: ledger.HeartbeatStale}
	drain(m, m.Ledger(context.Background(), live.LedgerUpdate{Snapshot: snap}))
	if m.Figures().Runs != 1 {
		t.Fatalf("entering STALE did not compact: %+v", m.Figures())
	}
	manual := New(nil, Policy{Manual: true}, nil)
	drain(manual, manual.Init(context.Background()))
	drain(manual, manual.Relay(context.Background(), live.RelayUpdate{Output: &live.OutputLine{Line: "x"}}))
	drain(manual, manual.Instruction(context.Background(), "x"))
	if manual.Figures().Runs != 0 {
		t.Fatal("a manual policy compacted")
	}
}

func TestCorruptFileStartsFresh(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(FileStore{Path: path}, DefaultPolicy(), nil)
	drain(m, m.Init(context.Background()))
	if m.Err() == nil {
		t.Fatal("corrupt context file not reported")
	}
	drain(m, m.Instruction(context.Background(), "again"))
	if m.Context().Facts().LatestInstruction != "again" {
		t.Fatal("window did not carry on after a corrupt context file")
	}
}

func TestFailingHookIsReportedAndSkipped(t *testing.T) {
	t.Parallel()
	hs := compact.NewHooks()
	if err := hs.AddFunc(hooks.PreCompact, "redact", time.Second, func(context.Context, *compact.Context, compact.Facts) (*compact.Context, error) {
		return nil, errors.New("boom")
	}); err != nil {
		t.Fatal(err)
	}
	m := New(nil, Policy{Triggers: compact.DefaultTriggers(), Hooks: hs}, nil)
	ctx := context.Background()
	drain(m, m.Init(ctx))
	m.Relay(ctx, live.RelayUpdate{Output: &live.OutputLine{Line: "log"}})
	drain(m, m.Instruction(ctx, "go"))
	var he *HookError
	if !errors.As(m.HookErr(), &he) || he.Result.Name != "redact" || he.Result.Code != hooks.CodeError {
		t.Fatalf("hook failure not reported: %v", m.HookErr())
	}
	if m.Figures().Runs != 1 || m.Context().Facts().LatestInstruction != "go" {
		t.Fatal("the built-in compaction did not stand when a later hook failed")
	}
}
