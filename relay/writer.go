package relay

import (
	"bufio"
	"time"
)

// writeLoop writes answers and notices to the peer until the reader closes
// replies. Answers come first and are flushed at once; notices are batched
// and flushed when nothing else is pending. Every write has a deadline, so
// a peer that stops reading costs one blocked goroutine for WriteTimeout
// (NoticeDeadline for a write of notices) and then its connection.
func (c *conn) writeLoop() {
	defer close(c.wdone)
	w := &deadlineWriter{c: c}
	bw := bufio.NewWriterSize(w, 32<<10)
	for {
		select {
		case line, ok := <-c.replies:
			if !ok || !c.writeReply(w, bw, line) {
				c.drain(ok)
				return
			}
			continue
		default:
		}
		if line, ok := c.nextNotice(); ok {
			w.notices = true
			if _, err := bw.Write(line); err != nil {
				c.drain(true)
				return
			}
			continue
		}
		if bw.Buffered() > 0 {
			if bw.Flush() != nil {
				c.drain(true)
				return
			}
			w.notices = false
			continue
		}
		select {
		case line, ok := <-c.replies:
			if !ok || !c.writeReply(w, bw, line) {
				c.drain(ok)
				return
			}
		case <-c.notices.ready:
		}
	}
}

// writeReply writes and flushes one answer (after the notices already
// buffered), and reports success.
func (c *conn) writeReply(w *deadlineWriter, bw *bufio.Writer, line []byte) bool {
	if _, err := bw.Write(line); err != nil {
		return false
	}
	if bw.Flush() != nil {
		return false
	}
	w.notices = false
	return true
}

// nextNotice returns the next notice line to write, unless notices are
// held for an observe reply.
func (c *conn) nextNotice() ([]byte, bool) {
	if c.holding.Load() {
		return nil, false
	}
	line, lost, ok := c.notices.pop()
	if !ok {
		return nil, false
	}
	if lost > 0 {
		line, _ = encodeNotice(Notice{Kind: NoticeDropped, Dropped: lost})
	}
	return line, true
}

// drain ends the writer. If replies is still open the write failed: the
// connection is closed so that the reader stops, and replies is emptied
// until the reader closes it, so that the reader never blocks on a writer
// that is gone.
func (c *conn) drain(open bool) {
	if !open {
		return
	}
	_ = c.nc.Close()
	for range c.replies {
	}
}

// deadlineWriter gives every write to the peer its own deadline: the
// notice deadline while the write carries notices, so that an observer
// that does not read is closed before it holds its slot for long.
type deadlineWriter struct {
	c *conn
	// notices: the buffer holds notices not yet written. The writer
	// goroutine alone uses it.
	notices bool
}

// Write implements io.Writer.
func (w *deadlineWriter) Write(p []byte) (int, error) {
	cfg := &w.c.s.cfg
	d := cfg.WriteTimeout
	if w.notices {
		d = min(d, cfg.NoticeDeadline)
	}
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(d))
	return w.c.nc.Write(p)
}
