package e2e

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/outbox"
)

// daokit webhook, the real binary: a signed delivery reads GitHub into
// the mirror at once, a replayed one changes nothing, a forged one is
// refused, and SIGTERM stops it cleanly.
func TestWebhookCommand(t *testing.T) {
	t.Parallel()
	const token, secret = "ghp_hookTOKEN0123456789abcdef", "hook-secret"
	f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{token: {Login: "daokit-bot", Push: true}}, "acme/app")
	defer f.Close()
	root := t.TempDir()
	if out, err := exec.Command(daokit, "init", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	cfg, _ := os.ReadFile(filepath.Join(root, "daokit.toml"))
	os.WriteFile(filepath.Join(root, "daokit.toml"), append(cfg, []byte("\n[team]\noutbox_root = \"team\"\n")...), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte("[outbox]\nbackend = \"github\"\nrepo = \"acme/app\"\napi_url = \""+f.URL+"\"\n[roles.backend]\n"), 0o644)
	env := append(os.Environ(), "GITHUB_TOKEN="+token, outbox.WebhookSecretEnv+"="+secret, "DAOKIT_LANG=en")

	cmd := exec.Command(daokit, "webhook", "--root", root, "--listen", "127.0.0.1:0")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		line <- sc.Text()
	}()
	var addr string
	select {
	case l := <-line:
		if _, rest, ok := strings.Cut(l, "listening on "); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("daokit webhook never listened: %s", stderr.String())
	}
	if addr == "" {
		t.Fatalf("no address: %s", stderr.String())
	}
	f.OpenIssue("acme/app", "ann", "from GitHub", "", "to:backend")
	body := []byte(`{"action":"opened","issue":{"number":1}}`)
	deliver := func(id, sig string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Delivery", id)
		req.Header.Set("X-GitHub-Event", "issues")
		req.Header.Set("X-Hub-Signature-256", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := deliver("d-1", fakegithub.SignWebhook([]byte("wrong"), body)); st != http.StatusUnauthorized {
		t.Fatalf("forged delivery: %d", st)
	}
	if st := deliver("d-1", fakegithub.SignWebhook([]byte(secret), body)); st != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", st, stderr.String())
	}
	show := exec.Command(daokit, "outbox", "show", "--root", root, "1")
	show.Env = env
	if out, err := show.CombinedOutput(); err != nil || !strings.Contains(string(out), "from GitHub") {
		t.Fatalf("the mirror lacks the issue: %v %s", err, out)
	}
	sent := len(f.Requests())
	if st := deliver("d-1", fakegithub.SignWebhook([]byte(secret), body)); st != http.StatusOK || len(f.Requests()) != sent {
		t.Fatalf("replay: %d, %d requests to GitHub", st, len(f.Requests())-sent)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("daokit webhook did not stop cleanly: %v %s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), token) || strings.Contains(stderr.String(), secret) {
		t.Fatal("a secret was printed")
	}
}
