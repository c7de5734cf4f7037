package memtrim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DropExecutablePages unmaps, from this process only, the pages of its
// own executable's code and read-only data (madvise MADV_DONTNEED).
//
// Why: every Go program runs the initialisation of every package it
// links, and the kernel maps the executable 64 KiB around each page it
// runs ("fault-around"), so a `daokit lead` that has started holds
// 18 MiB of the 35 MB daokit binary (text and rodata) in its resident
// set, of which it never runs half again. The pages are clean copies of
// the file: they stay in the page cache, shared, and the ones the process
// does run come back at their next use (a minor fault, no disk read), so
// afterwards its resident set holds the code it runs, not the code it ran
// once.
//
// Only mappings of the executable that are read-only, private and hold
// no page of their own (Anonymous: 0, no copy-on-write page, such as a
// debugger's breakpoint) are dropped: nothing in them can be lost.
func DropExecutablePages() (int64, error) {
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		return 0, err
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	dev := fmt.Sprintf("%02x:%02x", unix.Major(exe.Dev), unix.Minor(exe.Dev))
	var dropped int64
	for _, m := range parseSmaps(data) {
		if m.dev != dev || m.inode != exe.Ino || strings.Contains(m.perms, "w") || !strings.HasSuffix(m.perms, "p") || m.anonymous != 0 || m.rss == 0 {
			continue
		}
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); e != 0 {
			return dropped, e
		}
		dropped += m.rss
	}
	return dropped, nil
}

// mapping is one entry of /proc/self/smaps, with the fields used here.
type mapping struct {
	start, end     uint64
	perms, dev     string
	inode          uint64
	rss, anonymous int64
}

// parseSmaps reads the mappings of /proc/<pid>/smaps: a header line
// ("start-end perms offset dev inode path") followed by "Field: n kB"
// lines.
func parseSmaps(data []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			inode, err3 := strconv.ParseUint(f[4], 10, 64)
			if err1 == nil && err2 == nil && err3 == nil {
				out = append(out, mapping{start: start, end: end, perms: f[1], dev: f[3], inode: inode})
				continue
			}
		}
		if len(out) == 0 || len(f) != 3 || f[2] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Rss:":
			out[len(out)-1].rss = n << 10
		case "Anonymous:":
			out[len(out)-1].anonymous = n << 10
		}
	}
	return out
}
