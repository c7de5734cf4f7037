package mirror_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/ledger"
)

// leaderRoot starts an in-process hub and a leader of root id with a
// store on a fresh folder, and returns them.
func leaderRoot(t *testing.T, id string) (*hub.Hub, *ledger.Store, string) {
	t.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	dir := t.TempDir()
	l, err := leader.Campaign(context.Background(), leader.Options{
		Hub: mirror.Hub{URL: h.ClientURL(), Credentials: h.CredentialsFile()}, Root: id, TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	if _, err := l.Reconcile(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	s, err := ledger.Open(dir, ledger.Options{CreateStateDir: true, Replica: l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return h, s, dir
}

func appendEvents(t *testing.T, s *ledger.Store, n int) {
	t.Helper()
	for i := range n {
		e := ledger.NewEvent(time.Now(), "t1", "r1", "", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "n", i))
		if err := s.AppendEvent(e); err != nil {
			t.Fatal(err)
		}
	}
}

// runMirror runs mirror.Run until the test ends; the channel hears how
// it returned.
func runMirror(t *testing.T, h *hub.Hub, id, dir string) (context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(ended)
		done <- mirror.Run(ctx, mirror.Options{Hub: mirror.Hub{URL: h.ClientURL(), Credentials: h.CredentialsFile()}, Root: id, Dir: dir})
	}()
	t.Cleanup(func() {
		cancel()
		<-ended
	})
	return cancel, done
}

func waitEqual(t *testing.T, a, b string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if len(x) > 0 && bytes.Equal(x, y) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (%d bytes) not equal to %s (%d bytes) within 10s", b, len(y), a, len(x))
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// TestMirrorResumesAfterATornTail: a mirror stopped, whose last line was
// then torn (a crash mid-append), resumes from its whole lines and
// equals the leader's events.jsonl again, documents included.
func TestMirrorResumesAfterATornTail(t *testing.T) {
	h, s, dir := leaderRoot(t, "m1")
	copyDir := t.TempDir()
	appendEvents(t, s, 20)
	stop, done := runMirror(t, h, "m1", copyDir)
	leaderEvents, copyEvents := ledger.Layout{Root: dir}.Events(), ledger.Layout{Root: copyDir}.Events()
	waitEqual(t, leaderEvents, copyEvents)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("mirror stopped with %v", err)
	}
	data, _ := os.ReadFile(copyEvents)
	if err := os.WriteFile(copyEvents, data[:len(data)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, s, 5)
	if _, err := s.WriteHeartbeat(ledger.NewHeartbeatStatus(time.Now())); err != nil {
		t.Fatal(err)
	}
	runMirror(t, h, "m1", copyDir)
	waitEqual(t, leaderEvents, copyEvents)
	waitEqual(t, ledger.Layout{Root: dir}.Heartbeat(), ledger.Layout{Root: copyDir}.Heartbeat())
}

// TestMirrorRefusesAnotherRootsFolderAndASecondMirror: a folder whose
// last line is not the stream's is left as it is; a second mirror on a
// folder another mirror writes is refused.
func TestMirrorRefusesAnotherRootsFolderAndASecondMirror(t *testing.T) {
	h, s, _ := leaderRoot(t, "m2")
	appendEvents(t, s, 3)
	foreign := t.TempDir()
	if err := os.MkdirAll(filepath.Join(foreign, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	events := ledger.Layout{Root: foreign}.Events()
	if err := os.WriteFile(events, []byte("{\"not\":\"this root\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, done := runMirror(t, h, "m2", foreign)
	if err := <-done; !errors.Is(err, mirror.ErrNotThisRoot) {
		t.Fatalf("another root's folder: %v, want ErrNotThisRoot", err)
	}
	if data, _ := os.ReadFile(events); string(data) != "{\"not\":\"this root\"}\n" {
		t.Error("the refused folder was changed")
	}

	copyDir := t.TempDir()
	runMirror(t, h, "m2", copyDir)
	waitEqual(t, ledger.Layout{Root: copyDir}.Events(), ledger.Layout{Root: copyDir}.Events())
	_, second := runMirror(t, h, "m2", copyDir)
	if err := <-second; !errors.Is(err, mirror.ErrBusy) {
		t.Fatalf("second mirror on one folder: %v, want ErrBusy", err)
	}
}
