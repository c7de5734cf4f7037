package worker

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DefaultLogLimit is how many bytes each of a step's stdout.log and
// stderr.log keeps when the lane sets no limit: a flooding worker must not
// fill the disk the ledger lives on.
const DefaultLogLimit = 64 << 20

// logCap keeps an artifact log that the worker writes into directly
// within its limit. Once more than limit bytes lie past the log's head,
// the head is punched out (a hole: FALLOC_FL_PUNCH_HOLE) so that about
// the newest half of the limit stays: the end of a log says why a worker
// failed. A hole keeps the file's length, so every offset into it (where
// an attempt starts, how far a reader got) stays valid while the worker
// appends, and the disk it takes stays bounded. Readers start at the
// first data (see dataStart). Only the goroutine following the log cuts
// it.
type logCap struct {
	f     *os.File
	limit int64 // ≤ 0: no limit
	block int64 // the file system's block: holes are whole blocks
	start int64 // where the kept bytes begin: before it, a hole
	cut   int64 // bytes punched out so far
	err   error // why a cut failed: the log then grows past its limit
}

func newLogCap(f *os.File, limit, from int64) *logCap {
	c := &logCap{f: f, limit: limit, block: 4096, start: dataStart(f, 0, from)}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) == nil && st.Blksize > 0 {
		c.block = int64(st.Blksize)
	}
	return c
}

// keep cuts the head of a log that is size bytes long if more than the
// limit lies past it, and returns where the kept bytes now begin. A
// file system that cannot punch holes leaves the log whole; err says so
// once.
func (c *logCap) keep(size int64) int64 {
	if c.limit <= 0 || c.err != nil || size-c.start <= c.limit {
		return c.start
	}
	to := (size - c.limit/2) / c.block * c.block
	if to <= c.start {
		return c.start
	}
	if err := unix.Fallocate(int(c.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, c.start, to-c.start); err != nil {
		c.err = fmt.Errorf("cut the head of %s: %w", c.f.Name(), err)
		return c.start
	}
	c.cut += to - c.start
	c.start = to
	return to
}

// dataStart returns where the bytes of a log begin at or after from: past
// the hole a cut left at its head (see logCap), or from itself where the
// file system cannot tell holes apart. size is the log's length: a log
// that is all hole past from has its data start there.
func dataStart(f *os.File, size, from int64) int64 {
	off, err := unix.Seek(int(f.Fd()), from, unix.SEEK_DATA)
	switch {
	case errors.Is(err, unix.ENXIO):
		// Nothing but hole from there on.
		return max(size, from)
	case err != nil || off < from:
		return from
	}
	return off
}
