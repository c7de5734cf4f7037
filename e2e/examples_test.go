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
