package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// remotePerson is someone on another host than a root's leader: their
// commands run in a folder of their own (no ledger) with a cache of
// their own, and reach the root only through the hub.
type remotePerson struct {
	t           *testing.T
	home, cache string
	hub         []string // --hub URL --root-id ID --credentials KEY
}

func newRemotePerson(t *testing.T, url, id, key string) *remotePerson {
	return &remotePerson{t: t, home: t.TempDir(), cache: t.TempDir(),
		hub: []string{"--hub", url, "--root-id", id, "--credentials", key}}
}

// run runs daokit with the person's hub flags after args, bounded.
func (p *remotePerson) run(args ...string) result {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daokit, append(args, p.hub...)...)
	cmd.Dir = p.home
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en", "XDG_CACHE_HOME="+p.cache)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		p.t.Fatalf("daokit %v hangs", args)
	}
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// ledRemoteRoot starts a hub and a root id on it led by a controller on
// this host. The leader and the person each hold only their key for the
// root (`daokit hub creds`, loaded on SIGHUP): the person's reader key is
// returned, with the hub, its data folder and the leader's root.
func ledRemoteRoot(t *testing.T, id string) (h *hubProc, hubDir, root, readerKey string) {
	t.Helper()
	hubDir = t.TempDir()
	h = startHubProc(t, hubDir, "127.0.0.1:0")
	leaderKey, readerKey := issueKey(t, hubDir, id, "leader"), issueKey(t, hubDir, id, "reader")
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmitted(t, h.url, readerKey)
	root = newRoot(t, hubRootConfig(h.url, leaderKey, id))
	startController(t, root)
	return h, hubDir, root, readerKey
}

// A person on another host sends an instruction through the hub and
// waits for its end; status and replay read the root from a mirror; a
// control request is the leader's to decide; nothing of it is written
// where the person works. The same instruction is in the leader's own
// ledger once.
func TestRemotePersonWorksThroughTheHub(t *testing.T) {
	t.Parallel()
	const id = "remote-person"
	h, hubDir, root, readerKey := ledRemoteRoot(t, id)
	p := newRemotePerson(t, h.url, id, readerKey)

	r := p.run("send", "--wait", "write the changelog")
	if r.code != 0 || !strings.Contains(r.stdout, "task_id=") || !strings.Contains(r.stdout, "is DONE") {
		t.Fatalf("send --wait through the hub: %+v", r)
	}
	task := strings.Fields(strings.TrimPrefix(r.stdout, "task_id="))[0]
	if n := instructionsIn(t, root, "write the changelog"); n != 1 {
		t.Errorf("the leader's events.jsonl holds the instruction %d times, want 1", n)
	}

	r = p.run("status", "--json")
	var st struct {
		Pipeline struct {
			TaskID string `json:"task_id"`
			Status string `json:"status"`
		} `json:"pipeline_state"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || st.Pipeline.TaskID != task || st.Pipeline.Status != "DONE" {
		t.Errorf("status --json through the hub: %+v (decoded %+v), want task %s DONE", r, st, task)
	}
	if r = p.run("replay", "--limit", "200", "--json"); r.code != 0 || !strings.Contains(r.stdout, task) || !strings.Contains(r.stdout, "ACCEPTANCE_PASSED") {
		t.Errorf("replay through the hub: %+v, want the task's events", r)
	}

	// The leader decides a control request: a finished run cannot be
	// cancelled, and the refusal is its own.
	if r = p.run("send", "--cancel", "--task-id", task); r.code == 0 || !strings.Contains(r.stderr, "E_SEND_FAILED") {
		t.Errorf("cancel of a finished run through the hub: %+v, want the leader's refusal", r)
	}
	if entries, _ := os.ReadDir(p.home); len(entries) != 0 {
		t.Errorf("the person's folder holds %d entries, want none", len(entries))
	}

	// A root no leader ever served is named, not waited for.
	// (The administrator's key: a reader's key reaches no other root.)
	p.hub[3], p.hub[5] = "nobody-leads", filepath.Join(hubDir, "admin.nk")
	if r = p.run("send", "hello"); r.code == 0 || !strings.Contains(r.stderr, "no leader has served root nobody-leads") {
		t.Errorf("send to an unserved root: %+v", r)
	}
}

// The window opened on a remote root (`daokit --hub … --root-id …`)
// draws it from a mirror and sends what the person types to the leader,
// whose run it then shows to its end.
func TestRemoteWindowDrivesTheLeader(t *testing.T) {
	t.Parallel()
	const id = "remote-window"
	h, _, root, readerKey := ledRemoteRoot(t, id)
	cache := t.TempDir()
	// The person's window holds only a reader key of the root.
	win := openTmux(t, "env XDG_CACHE_HOME="+cache+" "+strings.Join(quoteAll([]string{daokit, "--hub", h.url, "--root-id", id, "--credentials", readerKey}), " "))
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("translate the guide")
	win.waitFor(60*time.Second, "goal translate the guide", "status done")
	if n := instructionsIn(t, root, "translate the guide"); n != 1 {
		t.Errorf("the leader's events.jsonl holds the window's instruction %d times, want 1", n)
	}
}

// instructionsIn counts the instructions with text that root's ledger
// received.
func instructionsIn(t *testing.T, root, text string) int {
	t.Helper()
	b, err := os.ReadFile(ledger.Layout{Root: root}.Events())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"INSTRUCTION_RECEIVED"`) && strings.Contains(line, text) {
			n++
		}
	}
	return n
}

// A person who sends while the hub is down is told that send waits for
// it, and the instruction reaches the leader once the hub is back on its
// address: a hub restart is an outage, not a failed send.
func TestRemoteSendWaitsOutAHubRestart(t *testing.T) {
	t.Parallel()
	const id = "remote-restart"
	h, hubDir, root, readerKey := ledRemoteRoot(t, id)
	p := newRemotePerson(t, h.url, id, readerKey)
	h.kill(t)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daokit, append([]string{"send", "while the hub restarts"}, p.hub...)...)
	cmd.Dir = p.home
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en", "XDG_CACHE_HOME="+p.cache)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	told := false
	for !told && sc.Scan() {
		told = strings.Contains(sc.Text(), "waiting for the hub "+h.url)
	}
	if !told {
		_ = cmd.Wait()
		t.Fatalf("send did not say it waits for the hub; stdout %q", out.String())
	}
	startHubProc(t, hubDir, strings.TrimPrefix(h.url, "nats://"))
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "task_id=") {
		t.Fatalf("send once the hub was back: %v\nstdout %q\nstderr %q", err, out.String(), rest)
	}
	if n := instructionsIn(t, root, "while the hub restarts"); n != 1 {
		t.Errorf("the leader's events.jsonl holds the instruction %d times, want 1", n)
	}
}
