package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestFullDiskControllerIsNotFenced: a controller whose disk is full
// cannot write its lease renewals, so its standing lease expires on disk;
// but it answers on its socket, so a second controller leaves it alone and
// exits saying why. (A paused one is fenced: TestPausedControllerIsFenced.)
func TestFullDiskControllerIsNotFenced(t *testing.T) {
	t.Parallel()
	root := tmpfsProject(t, "1s")
	holder := startController(t, root)
	filler := fillDisk(t, root)
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
