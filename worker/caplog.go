package worker

import (
	"fmt"
	"os"
)

// DefaultLogLimit is how many bytes each of a step's stdout.log and
// stderr.log keeps when the lane sets no limit: a flooding worker must not
// fill the disk the ledger lives on.
const DefaultLogLimit = 64 << 20

// cappedLog appends to an artifact log that never grows past limit bytes:
// when a write would pass it, the head is cut and the newest half of the
// limit kept (the end of a log says why a worker failed). Cutting costs a
// copy of half the limit once per half the limit written, so the cost per
// byte stays flat. Only the goroutine reading the stream writes.
type cappedLog struct {
	f     *os.File
	limit int64 // ≤ 0: no limit
	size  int64
	cut   int64 // bytes cut from the head so far
}

func newCappedLog(f *os.File, limit int64) (*cappedLog, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return &cappedLog{f: f, limit: limit, size: st.Size()}, nil
}

// Write appends b, cutting the head first if the file would pass limit.
func (l *cappedLog) Write(b []byte) error {
	if l.limit > 0 && l.size+int64(len(b)) > l.limit {
		if err := l.cutFor(b); err != nil {
			return err
		}
		if keep := l.limit / 2; int64(len(b)) > keep {
			l.cut += int64(len(b)) - keep
			b = b[int64(len(b))-keep:]
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	return err
}

// cutFor keeps the newest bytes of the file so that, with b, the file
// holds about half the limit.
func (l *cappedLog) cutFor(b []byte) error {
	tail := max(l.limit/2-int64(len(b)), 0)
	tail = min(tail, l.size)
	buf := make([]byte, tail)
	if _, err := l.f.ReadAt(buf, l.size-tail); err != nil {
		return fmt.Errorf("keep the tail of %s: %w", l.f.Name(), err)
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	// O_APPEND: the write lands at the new end, offset 0.
	n, err := l.f.Write(buf)
	l.cut += l.size - tail
	l.size = int64(n)
	return err
}
