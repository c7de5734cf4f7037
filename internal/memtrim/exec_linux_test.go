package memtrim

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// written lives in the executable's writable data: dropping the
// executable's pages must never touch it.
var written = []int{1, 2, 3}

// exeResident is the resident size of this test binary's read-only
// mappings, and of its writable ones.
func exeResident(t *testing.T) (ro, rw int64) {
	t.Helper()
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	for _, m := range parseSmaps(data) {
		if m.inode != exe.Ino {
			continue
		}
		if m.perms[1] == 'w' {
			rw += m.rss
		} else {
			ro += m.rss
		}
	}
	return ro, rw
}

func TestDropExecutablePagesKeepsTheProcessWhole(t *testing.T) {
	written[1] = 20
	ro, _ := exeResident(t)
	if ro == 0 {
		t.Fatal("no resident page of the executable found in smaps")
	}
	n, err := DropExecutablePages()
	if err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		t.Fatalf("dropped %d bytes of %d resident", n, ro)
	}
	// The code runs on (its pages fault back in) and the writable data
	// kept what was written.
	after, rw := exeResident(t)
	if after >= ro {
		t.Errorf("read-only pages of the executable: %d resident before, %d after", ro, after)
	}
	if rw == 0 || written[1] != 20 {
		t.Errorf("writable data lost: %v (resident %d)", written, rw)
	}
}
