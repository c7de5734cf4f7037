package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tmpfsProject is a daokit project with the simulated worker (each step
// taking duration) on a tmpfs of 4 MiB of its own, so a test can fill
// its disk without filling the machine's. It skips where a tmpfs cannot
// be mounted.
func tmpfsProject(t *testing.T, duration string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; this test runs as root")
	}
	root := t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v)", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(root, syscall.MNT_DETACH) })
	run(t, "init", "--root", root)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(simConfig(duration)), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// fillDisk writes a file under root until its disk is full (ENOSPC) and
// returns the file's path: removing it makes room again.
func fillDisk(t *testing.T, root string) string {
	t.Helper()
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
	return filler
}
