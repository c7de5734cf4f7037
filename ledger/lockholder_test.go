package ledger

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLockHolderNamesTheStore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	if pid, err := LockHolder(root); err == nil && pid != 0 {
		t.Fatalf("before Open: holder %d, want none", pid)
	}
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := LockHolder(root)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("holder %d, %v; want this process %d", pid, err, os.Getpid())
	}
	s.Close()
	if pid, _ := LockHolder(root); pid != 0 {
		t.Fatalf("after Close: holder %d, want none", pid)
	}
}

func TestFindFlockHolderSkipsWaitersAndOtherFiles(t *testing.T) {
	t.Parallel()
	locks := "1: POSIX  ADVISORY  WRITE 10 fe:00:42 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 20 fe:01:42 0 EOF\n" +
		"3: FLOCK  ADVISORY  WRITE 30 fe:00:42 0 EOF\n" +
		"3: -> FLOCK  ADVISORY  WRITE 40 fe:00:42 0 EOF\n"
	pid, err := findFlockHolder(bufio.NewScanner(strings.NewReader(locks)), 0xfe, 0, 42)
	if err != nil || pid != 30 {
		t.Fatalf("got %d, %v; want 30", pid, err)
	}
}
