package worker

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/daokit/daokit/worker/transcript"
)

// How often a follower looks for more output while the worker is quiet:
// soon after output (a worker that spoke is likely to go on), backing off
// to the slower pace while it thinks.
const (
	followPollMin = 2 * time.Millisecond
	followPollMax = 50 * time.Millisecond
)

// follow reads one of the worker's artifact logs, which the worker writes
// into directly, from where this attempt starts, and cuts what it reads
// into records. The worker's bytes reach the file with no process of
// ours between: a controller killed at any moment leaves every byte the
// worker wrote, its result line included, for a successor to read back
// (see Replay). Once gone is closed (the worker's tree is dead) the log
// is read up to the length it had then: a descendant that escaped the
// tree and goes on writing cannot keep the step from ending.
func (p *Process) follow(stream transcript.Stream, log *os.File, from int64, gone <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	lc := newLogCap(log, p.spec.LogLimit, from)
	buf := make([]byte, 64<<10)
	sp := splitter{limit: p.spec.readLimit()}
	emit := func(line []byte, size int) { p.handleLine(stream, line, size) }
	pos := max(from, lc.start)
	end := int64(-1) // the log's length when the worker was gone
	poll := time.NewTimer(followPollMin)
	defer poll.Stop()
	wait := followPollMin
follow:
	for {
		n, err := log.ReadAt(buf, pos)
		if n > 0 {
			pos += int64(n)
			p.activity.Store(time.Now().UnixNano())
			p.countBytes(stream, n)
			sp.feed(buf[:n], emit)
			wait = followPollMin
		}
		if err != nil && !errors.Is(err, io.EOF) {
			p.artifactFailed(err)
			break
		}
		// A worker can write faster than it is read: the cap goes by the
		// log's length, and what it cut before it was read is skipped.
		size := pos
		if n == len(buf) {
			size = fileSize(log, pos)
		}
		if start := lc.keep(size); start > pos {
			p.countBytes(stream, int(start-pos))
			pos = start
			sp.reset()
		}
		switch {
		case end >= 0 && pos >= end:
			break follow
		case n == len(buf):
			continue
		}
		select {
		case <-gone:
			if end >= 0 {
				// Read to the end of the log since the worker was gone.
				break follow
			}
			end = fileSize(log, pos)
		case <-poll.C:
			wait = min(2*wait, followPollMax)
			if st, err := log.Stat(); err == nil && st.Size() < pos {
				// Someone cut the log short (to free the disk, say): what the
				// worker writes next lands at its new end.
				pos = st.Size()
				lc.start = min(lc.start, pos)
				sp.reset()
			}
		}
		poll.Reset(wait)
	}
	sp.flush(emit)
	p.logFollowed(stream, lc, max(end, pos))
}

// logFollowed records what following a log found: its length and what
// its cap cut.
func (p *Process) logFollowed(stream transcript.Stream, lc *logCap, size int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.LogCutBytes += lc.cut
	if stream == transcript.Stdout {
		p.stats.StdoutLogBytes = size
	} else {
		p.stats.StderrLogBytes = size
	}
	if lc.err != nil && p.artErr == nil {
		p.artErr = lc.err
	}
}

// fileSize returns f's length, or atLeast where it cannot be read.
func fileSize(f *os.File, atLeast int64) int64 {
	st, err := f.Stat()
	if err != nil {
		return atLeast
	}
	return max(st.Size(), atLeast)
}
