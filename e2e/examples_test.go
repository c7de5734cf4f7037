package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
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

// TestTeamExampleScriptOnGitHub runs the same example with its outbox on
// the GitHub stand-in (workflow.toml's [outbox] backend = "github"): the
// same steps and evidence; the token reaches GitHub and nothing else.
func TestTeamExampleScriptOnGitHub(t *testing.T) {
	t.Parallel()
	const token = "ghp_e2eTOKEN0123456789abcdef"
	f := fakegithub.New(fakegithub.Options{Prefix: "/api/v3"}, map[string]fakegithub.Token{token: {Login: "daokit-bot", Push: true}}, "acme/app")
	defer f.Close()
	teamExampleOn(t, "backend = \"github\"\nrepo = \"acme/app\"\napi_url = \""+f.URL+"\"", "GITHUB_TOKEN", token, func(n int64) string {
		_, _, state, _ := f.Issue("acme/app", n)
		return state
	})
}

// TestTeamExampleScriptOnGitLab runs the same example with its outbox on
// the GitLab stand-in, a project in a subgroup of a self-hosted GitLab:
// the same steps and evidence; GITLAB_TOKEN reaches GitLab and nothing
// else.
func TestTeamExampleScriptOnGitLab(t *testing.T) {
	t.Parallel()
	const token = "glpat-e2eTOKEN0123456789abcdef"
	f := fakegitlab.New(fakegitlab.Options{Prefix: "/gitlab/api/v4"}, map[string]fakegitlab.Token{token: {Username: "daokit-bot", Level: 30}}, nil, "acme/platform/app")
	defer f.Close()
	teamExampleOn(t, "backend = \"gitlab\"\nrepo = \"acme/platform/app\"\napi_url = \""+f.URL+"\"", "GITLAB_TOKEN", token, func(n int64) string {
		_, _, state, _ := f.Issue("acme/platform/app", n)
		return state
	})
}

// teamExampleOn runs examples/team/run.sh with the example's [outbox]
// set to outbox and the token in tokenEnv: the steps and the evidence
// are the SQLite run's, every issue is closed on the service (state),
// and the token is in no file of the root and in nothing printed.
func teamExampleOn(t *testing.T, outbox, tokenEnv, token string, state func(n int64) string) {
	example, err := os.ReadFile(filepath.Join("..", "examples", "team", "workflow.toml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := strings.Replace(string(example), "backend = \"sqlite\"\npath = \".daokit/outbox.db\"", outbox, 1)
	wfPath := filepath.Join(t.TempDir(), "workflow.toml")
	if err := os.WriteFile(wfPath, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "examples", "team", "run.sh"), root)
	cmd.Env = append(os.Environ(), "DAOKIT="+daokit, "DAOKIT_LANG=en", "TEAM_WORKFLOW="+wfPath, tokenEnv+"="+token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("team example on %s failed: %v\n%s", outbox, err, out)
	}
	for _, want := range []string{"BlockedBy: #1", "Unblocked", "IssueRef: #3", "Changes: commit sim-",
		"#3     closed  lead:qa", "Roles:", "integrator  alive"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("example output lacks %q:\n%s", want, out)
		}
	}
	for n := int64(1); n <= 3; n++ {
		if st := state(n); st != "closed" {
			t.Errorf("#%d is %s on the service", n, st)
		}
	}
	// The token is in no log, event, ledger or mirror file of the root.
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), token) {
				t.Errorf("the token is in %s", p)
			}
		}
		return nil
	})
	if strings.Contains(string(out), token) {
		t.Error("the token was printed")
	}
}
