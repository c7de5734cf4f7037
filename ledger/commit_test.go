package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// pythonPipeline is a pipeline_state.json as the Python tool's run writes
// it: steps carry planner_source and retrieval_policy, which are not in
// the contract, and role_lifecycle has an empty value.
const pythonPipeline = `{
  "schema_version": "1.0.0",
  "task_id": "DKT-300",
  "run_id": "RUN-A",
  "goal": "Interrupted goal",
  "status": "PLANNING",
  "current_step": "S1",
  "steps": [
    {
      "id": "S1",
      "title": "Implement orchestrator state machine",
      "category": "implementation",
      "goal": "Interrupted goal",
      "actions": [],
      "acceptance_criteria": ["Graph runs happy path end-to-end"],
      "expected_outputs": ["report.md"],
      "dependencies": ["DKT-002"],
      "planner_source": "bootstrap_default",
      "retrieval_policy": {"planning": {"enabled": true, "top_k": 3, "min_relevance_score": 0.2, "allow_global_fallback": true}}
    }
  ],
  "role_lifecycle": {"orchestrator": "idle", "controller_lane": "controller", "handoff_skipped_steps": ""},
  "succession": {"enabled": true, "last_takeover_at": null},
  "updated_at": "2026-11-22T01:45:05.330468+00:00"
}
`

// commitRoot is a ledger whose pipeline the Python tool wrote.
func commitRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(root, testNow); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath(root, PipelineFile), []byte(pythonPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// stateFiles reads every file in state/ (the lock aside).
func stateFiles(t testing.TB, root string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, StateDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.Name() == LockFile {
			continue
		}
		out[e.Name()] = string(readFile(t, filepath.Join(root, StateDir, e.Name())))
	}
	return out
}

// takeoverChanges is a takeover-shaped commit: the pipeline, the leases
// and two events.
func takeoverChanges(t testing.TB, root string) Changes {
	t.Helper()
	p, err := ParsePipelineState(readFile(t, statePath(root, PipelineFile)))
	if err != nil {
		t.Fatal(err)
	}
	p.Succession.LastTakeoverAt = FormatTime(testNow)
	p.RoleLifecycle = p.RoleLifecycle.With("step:S1", "owned_by_lane:controller")
	l := NewLeases(testNow)
	l.Leases = append(l.Leases, Lease{Lane: "controller", StepID: "S1", TaskID: "DKT-300", RunID: "RUN-A", ThreadID: "t", PID: 42,
		LeaseToken: NewLeaseToken(), Expiry: FormatTime(testNow.Add(time.Hour)), Status: LeaseActive,
		LastHeartbeatAt: FormatTime(testNow), CreatedAt: FormatTime(testNow), UpdatedAt: FormatTime(testNow)})
	events := []Event{
		NewEvent(testNow, "DKT-300", "RUN-A", "", EventLeaseTakeover, SeverityInfo, ObjectOf("reason_code", "MANUAL_TAKEOVER")),
		NewEvent(testNow, "DKT-300", "RUN-A", "S1", EventSystem, SeverityInfo, ObjectOf("operation", "LEASE_ADOPTED")),
	}
	return Changes{Pipeline: &p, Leases: &l, Events: events}
}

// TestCommitKeepsWhatAnotherToolWrote: a commit on a Python ledger keeps
// its extra fields and values, and still refuses a problem of daokit's.
func TestCommitKeepsWhatAnotherToolWrote(t *testing.T) {
	root := commitRoot(t)
	s, err := Open(root, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Commit(takeoverChanges(t, root)); err != nil {
		t.Fatalf("commit on a Python ledger: %v", err)
	}
	written := string(readFile(t, statePath(root, PipelineFile)))
	for _, want := range []string{`"planner_source": "bootstrap_default"`, `"min_relevance_score": 0.2`, `"handoff_skipped_steps": ""`, `"last_takeover_at": "2026-02-12T09:48:00.123456+00:00"`} {
		if !strings.Contains(written, want) {
			t.Errorf("written pipeline lacks %s:\n%s", want, written)
		}
	}
	if n := bytes.Count(readFile(t, statePath(root, EventsFile)), []byte("\n")); n != 2 {
		t.Errorf("%d events, want 2", n)
	}
	before := stateFiles(t, root)
	bad := takeoverChanges(t, root)
	bad.Pipeline.Status = "BOGUS"
	if err := s.Commit(bad); err == nil || !strings.Contains(err.Error(), "$.status") {
		t.Errorf("a status outside the contract was committed: %v", err)
	}
	if after := stateFiles(t, root); !maps.Equal(before, after) {
		t.Errorf("a refused commit changed files")
	}
}

// TestCommitIsAllOrNothingUnderAFailedWrite injects a failure before each
// write of a commit: every file is then as it was.
func TestCommitIsAllOrNothingUnderAFailedWrite(t *testing.T) {
	for _, step := range []string{JournalFile, PipelineFile, LeasesFile, EventsFile} {
		t.Run(step, func(t *testing.T) {
			root := commitRoot(t)
			s, err := Open(root, Options{Now: func() time.Time { return testNow }})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			before := stateFiles(t, root)
			injected := errors.New("injected")
			commitStep = func(name string) error {
				if name == step {
					return injected
				}
				return nil
			}
			defer func() { commitStep = func(string) error { return nil } }()
			if err := s.Commit(takeoverChanges(t, root)); !errors.Is(err, injected) {
				t.Fatalf("commit: %v, want the injected failure", err)
			}
			if after := stateFiles(t, root); !maps.Equal(before, after) {
				t.Errorf("files changed by a failed commit:\nbefore %v\nafter  %v", slices.Collect(maps.Keys(before)), slices.Collect(maps.Keys(after)))
			}
			commitStep = func(string) error { return nil }
			if err := s.Commit(takeoverChanges(t, root)); err != nil {
				t.Fatalf("commit after the failure: %v", err)
			}
		})
	}
}

// TestCommitIsAllOrNothingUnderSIGKILL kills a process committing at
// random points (before each write, or after a random delay): once the
// ledger is opened again the files are either all as before or all as
// after, never a mix.
func TestCommitIsAllOrNothingUnderSIGKILL(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 5
	}
	points := []string{JournalFile, PipelineFile, LeasesFile, EventsFile, stepCommitted, "random"}
	for i := range rounds {
		point := points[i%len(points)]
		root := commitRoot(t)
		before := stateFiles(t, root)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommitHelperProcess$")
		cmd.Env = append(os.Environ(), "DAOKIT_COMMIT_HELPER="+root, "DAOKIT_COMMIT_STOP="+point)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			t.Fatalf("helper said nothing")
		}
		if point == "random" {
			// The helper commits in a loop after saying "go"; kill it
			// at a random moment of it.
			time.AfterFunc(time.Duration(rand.IntN(3000))*time.Microsecond, func() { _ = cmd.Process.Kill() })
		} else {
			_ = cmd.Process.Kill()
		}
		for sc.Scan() {
		}
		_ = cmd.Wait()
		s, err := Open(root, Options{Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatalf("round %d (%s): reopen: %v", i, point, err)
		}
		_ = s.Close()
		after := stateFiles(t, root)
		if maps.Equal(before, after) {
			continue
		}
		p, err := ParsePipelineState([]byte(after[PipelineFile]))
		if err != nil {
			t.Fatalf("round %d (%s): pipeline: %v", i, point, err)
		}
		l, err := ParseLeases([]byte(after[LeasesFile]))
		if err != nil {
			t.Fatalf("round %d (%s): leases: %v", i, point, err)
		}
		commits := strings.Count(after[EventsFile], "\n") / 2
		if p.Succession.LastTakeoverAt == "" || len(l.Leases) != commits || strings.Count(after[EventsFile], "\n") != 2*commits || after[JournalFile] != "" {
			t.Errorf("round %d (%s): a mix of before and after: takeover_at %q, %d leases, %d event lines, journal %d bytes",
				i, point, p.Succession.LastTakeoverAt, len(l.Leases), strings.Count(after[EventsFile], "\n"), len(after[JournalFile]))
		}
	}
}

// TestCommitHelperProcess commits takeovers for the SIGKILL test: with a
// stop point it says "at" there and waits to be killed (with
// DAOKIT_COMMIT_WRITE=pipeline it writes the takeover's pipeline alone,
// as the controller does); with "random" it
// says "go" and commits in a loop, each commit adding one lease.
func TestCommitHelperProcess(t *testing.T) {
	root := os.Getenv("DAOKIT_COMMIT_HELPER")
	if root == "" {
		t.Skip("helper process only")
	}
	stop := os.Getenv("DAOKIT_COMMIT_STOP")
	s, err := Open(root, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	if stop != "random" {
		commitStep = func(name string) error {
			if name == stop {
				fmt.Println("at")
				select {}
			}
			return nil
		}
		if os.Getenv("DAOKIT_COMMIT_WRITE") == "pipeline" {
			// The controller's write: WritePipeline, not a Commit.
			_, err = s.WritePipeline(*takeoverChanges(t, root).Pipeline)
		} else {
			err = s.Commit(takeoverChanges(t, root))
		}
		fmt.Fprintln(os.Stderr, "helper: commit went past its stop point:", err)
		os.Exit(3)
	}
	fmt.Println("go")
	for {
		c := takeoverChanges(t, root)
		prev, err := ParseLeases(readFile(t, statePath(root, LeasesFile)))
		if err != nil {
			os.Exit(3)
		}
		c.Leases.Leases = append(prev.Leases, c.Leases.Leases...)
		if err := s.Commit(c); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
	}
}
