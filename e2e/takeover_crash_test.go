package e2e

import (
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestTakeoverUnderSIGKILL kills `daokit takeover` on a ledger the Python
// tool wrote at random moments. Once a writer has opened the root again
// (which finishes a commit cut short after its commit point), the state
// files are all as before or all as after the takeover, never a mix.
func TestTakeoverUnderSIGKILL(t *testing.T) {
	t.Parallel()
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	outcomes := map[string]int{}
	for i := range rounds {
		root := copyTree(t, filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))
		before := stateFiles(t, root)
		cmd := exec.Command(daokit, "takeover", "--root", root, "--successor-thread-id", "succ", "--successor-pid", "4242")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A takeover takes a few ms after a few ms of start-up: kill within 0-25 ms.
		timer := time.AfterFunc(time.Duration(rand.IntN(25000))*time.Microsecond, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		timer.Stop()
		s, err := ledger.Open(root, ledger.Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", i, err)
		}
		_ = s.Close()
		after := stateFiles(t, root)
		if maps.Equal(before, after) {
			outcomes["before"]++
			continue
		}
		outcomes["after"]++
		leases := after[ledger.LeasesFile]
		if strings.Count(leases, `"status": "TAKEN_OVER"`) != 1 || strings.Count(leases, `"status": "ACTIVE"`) != 1 ||
			!strings.Contains(after[ledger.PipelineFile], `"last_takeover_at": "20`) ||
			strings.Count(after[ledger.EventsFile], "\n") != 3 || after[ledger.JournalFile] != "" || !strings.Contains(after[ledger.HandoffFile], `"next_action": "resume"`) ||
			!strings.Contains(after[ledger.PipelineFile], `"retrieval_policy"`) {
			t.Fatalf("round %d: a mix of before and after:\n%s\n%s\n%s", i, after[ledger.PipelineFile], leases, after[ledger.EventsFile])
		}
	}
	t.Logf("outcomes over %d rounds: %v", rounds, outcomes)
}

// copyTree copies a fixture folder into a fresh temporary root.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return root
}

// stateFiles reads the files of state/ (the lock aside).
func stateFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, ledger.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.Name() == ledger.LockFile {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, ledger.StateDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}
