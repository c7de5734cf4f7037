package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFullDiskControllerIsNotFenced: a controller whose disk is full
// cannot write its lease renewals, so its standing lease expires on disk;
// but it answers on its socket, so a second controller leaves it alone and
// exits saying why. (A paused one is fenced: TestPausedControllerIsFenced.)
func TestFullDiskControllerIsNotFenced(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; this test runs as root")
	}
	root := t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v)", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(root, syscall.MNT_DETACH) })
	run(t, "init", "--root", root)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(simConfig("1s")), 0o644); err != nil {
		t.Fatal(err)
	}
	holder := startController(t, root)
	filler := filepath.Join(root, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	deadline := time.Now().Add(20 * time.Second)
	for !standingExpired(root, holder.pid()) {
		if time.Now().After(deadline) {
			t.Fatal("the standing lease on disk did not expire while the disk was full")
		}
		time.Sleep(100 * time.Millisecond) // polling the register; the condition decides
	}
	successor, ready := spawnController(t, root)
	select {
	case _, ok := <-ready:
		if ok {
			t.Fatal("a second controller started while the holder answers")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the second controller neither started nor exited")
	}
	<-successor.done
	if successor.err == nil || !strings.Contains(successor.err.Error(), "answers on its socket") {
		t.Errorf("the second controller ended with %v, want the holder-answers refusal", successor.err)
	}
	select {
	case <-holder.done:
		t.Fatalf("the holder was fenced although it answered: %v", holder.err)
	default:
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	holder.stop()
}
