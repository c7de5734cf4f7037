package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoveryDrillScript runs examples/recovery-drill.sh, the workflow
// the docs describe, with the binary under test.
func TestRecoveryDrillScript(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "examples", "recovery-drill.sh"), root)
	cmd.Env = append(os.Environ(), "DAOKIT="+daokit, "DAOKIT_LANG=en")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("recovery drill failed: %v\n%s", err, out)
	}
	for _, want := range []string{"HEARTBEAT_WARNING", "HEARTBEAT_STALE", "LEASE_TAKEOVER", `"next_action": "resume"`,
		`"latest_instruction": "add a --json flag to status"`, "is DONE", "Health check: PASS", "status=DONE"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("drill output lacks %q:\n%s", want, out)
		}
	}
}

// TestTeamExampleScript runs examples/team/run.sh, the example team the
// README starts with one command: three issues, one blocked by another,
// unblocked when it closes, and closed with evidence.
func TestTeamExampleScript(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "examples", "team", "run.sh"), root)
	cmd.Env = append(os.Environ(), "DAOKIT="+daokit, "DAOKIT_LANG=en")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("team example failed: %v\n%s", err, out)
	}
	for _, want := range []string{"BlockedBy: #1", "Unblocked", "IssueRef: #3", "Changes: commit sim-",
		"#3     closed  lead:qa", "Roles:", "integrator  alive"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("example output lacks %q:\n%s", want, out)
		}
	}
}
