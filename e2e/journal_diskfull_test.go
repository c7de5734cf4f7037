package e2e

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// TestTakeoverOnAFullDiskLeavesNoJournal runs `daokit takeover` on a
// Python ledger on a small tmpfs with every amount of free space from
// none to a dozen pages: the journal fits or not, each document's temp
// file fits or not. A takeover that fails says nothing was changed, and
// then nothing was: every file is as before and no journal is left for
// the next command to carry out (the issue saw one left, and applied by
// the next daokit command, when putting the files back needed space the
// disk no longer had). One that succeeds wrote everything.
func TestTakeoverOnAFullDiskLeavesNoJournal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) }()
	page := int64(os.Getpagesize())
	outcomes := map[string]int{}
	for free := int64(0); free <= 12; free++ {
		root := filepath.Join(disk, "root")
		if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))); err != nil {
			t.Fatal(err)
		}
		before := stateFiles(t, root)
		filler := filepath.Join(disk, "filler")
		fill(t, disk, filler, free*page)
		out, err := exec.Command(daokit, "takeover", "--root", root, "--successor-thread-id", "succ", "--successor-pid", "4242").CombinedOutput()
		_, jerr := os.Stat(filepath.Join(root, ledger.StateDir, ledger.JournalFile))
		if err == nil {
			outcomes["written"]++
			if jerr == nil {
				t.Errorf("%d free pages: a takeover that succeeded left its journal", free)
			}
		} else {
			outcomes["refused"]++
			if jerr == nil {
				t.Errorf("%d free pages: a failed takeover left its journal: %s", free, out)
			}
			// Space returns; the next writer must find nothing to finish.
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			s, err := ledger.Open(root, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := s.Repair()
			_ = s.Close()
			if after := stateFiles(t, root); !maps.Equal(before, after) || rep.FinishedCommit {
				t.Errorf("%d free pages: a takeover that said %q changed the ledger (finished later: %v)", free, out, rep.FinishedCommit)
			}
		}
		_ = os.Remove(filler)
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("outcomes: %v", outcomes)
	if outcomes["written"] == 0 || outcomes["refused"] == 0 {
		t.Errorf("outcomes %v: the range of free space missed a case", outcomes)
	}
}

// fill writes a file at path that leaves about free bytes available on
// the file system of dir.
func fill(t *testing.T, dir, path string, free int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(st.Bavail)*int64(st.Bsize) - free
	if size <= 0 {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for size > 0 {
		n := min(size, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			t.Fatal(err)
		}
		size -= n
	}
}
