package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/internal/fakerest"
	"github.com/daokit/daokit/outbox"
)

// exportTarget is a stand-in as the SIGKILL drill drives it.
type exportTarget struct {
	backend, repo, url, tokenEnv, token string
	// issuePost and commentPost end the paths the export posts to.
	issuePost, commentPost string
	inject                 func(fakerest.Fault)
	issues                 func() int
	bodies                 func(n int64) []string
}

// An export SIGKILLed while the service takes an issue, then again while
// it takes a comment (the service keeps what it was sent; the export
// never hears), and run to its end: each issue and each comment is on
// the service exactly once, and one more run sends nothing.
func TestExportResumesAfterSIGKILL(t *testing.T) {
	const ghTok, glTok = "ghp_exportKILL0123456789", "glpat-exportKILL0123456789"
	gh := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{ghTok: {Login: "bot", Push: true}}, "acme/app")
	defer gh.Close()
	gl := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{glTok: {Username: "bot", Level: 30}}, nil, "acme/app")
	defer gl.Close()
	for _, x := range []exportTarget{
		{"github", "acme/app", gh.URL, "GITHUB_TOKEN", ghTok, "/repos/acme/app/issues", "/comments", gh.Inject,
			func() int { return gh.Issues("acme/app") },
			func(n int64) []string { return gh.Comments("acme/app", n) }},
		{"gitlab", "acme/app", gl.URL, "GITLAB_TOKEN", glTok, "/issues", "/notes", gl.Inject,
			func() int { return gl.Issues("acme/app") },
			func(n int64) []string { return gl.Notes("acme/app", n) }},
	} {
		t.Run(x.backend, func(t *testing.T) { killExport(t, x) })
	}
}

func killExport(t *testing.T, x exportTarget) {
	root := newRoot(t, "")
	cfg, _ := os.ReadFile(filepath.Join(root, "daokit.toml"))
	os.WriteFile(filepath.Join(root, "daokit.toml"), append(cfg, []byte("\n[team]\noutbox_root = \"team\"\n")...), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(fmt.Sprintf(
		"[outbox]\nbackend = %q\nrepo = %q\napi_url = %q\n[roles.backend]\n", x.backend, x.repo, x.url)), 0o644)
	src := filepath.Join(root, "team", ".daokit", "outbox.db")
	if _, err := outbox.Init(src, false); err != nil {
		t.Fatal(err)
	}
	s, err := outbox.OpenSQLite(src, outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const issues, comments = 3, 3
	for i := 1; i <= issues; i++ {
		ops := []outbox.Op{{Kind: outbox.OpOpen, Title: fmt.Sprintf("task %d", i), Body: fmt.Sprintf("body of task %d", i), Labels: []string{"to:backend"}}}
		if _, err := s.Apply(context.Background(), outbox.Change{Actor: "ann", Ops: ops}); err != nil {
			t.Fatal(err)
		}
		for c := 1; c <= comments; c++ {
			op := outbox.Op{Kind: outbox.OpComment, Issue: int64(i), Body: fmt.Sprintf("note %d.%d", i, c)}
			if _, err := s.Apply(context.Background(), outbox.Change{Actor: "bob", Ops: []outbox.Op{op}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()
	env := append(os.Environ(), "DAOKIT_LANG=en", x.tokenEnv+"="+x.token)
	export := func() *exec.Cmd {
		cmd := exec.Command(daokit, "outbox", "export", "--to", x.backend, "--root", root)
		cmd.Env = env
		return cmd
	}
	// Killed twice: while the service takes issue 2, then comment 1.
	for _, where := range []string{x.issuePost, x.commentPost} {
		hold, holding := make(chan struct{}), make(chan struct{})
		x.inject(fakerest.Fault{Method: "POST", PathSuffix: where, Hold: hold, Holding: holding, Times: 1})
		cmd := export()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-holding:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the export never posted to %s", where)
		}
		cmd.Process.Kill()
		cmd.Wait()
		close(hold)
	}
	out, err := export().CombinedOutput()
	if err != nil || !strings.Contains(string(out), "were there already") {
		t.Fatalf("the resumed export: %v\n%s", err, out)
	}
	for i := int64(1); i <= issues; i++ {
		bodies := x.bodies(i)
		for c := 1; c <= comments; c++ {
			note := fmt.Sprintf("note %d.%d", i, c)
			n := 0
			for _, b := range bodies {
				if strings.Contains(b, note) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%q is on %s %d times: %q", note, x.backend, n, bodies)
			}
		}
	}
	if n := x.issues(); n != issues {
		t.Fatalf("%d issues on %s, want %d", n, x.backend, issues)
	}
	again, err := export().CombinedOutput()
	if err != nil || !strings.Contains(string(again), "exported 0 issues and 0 comments") {
		t.Fatalf("a run after the end: %v\n%s", err, again)
	}
}
