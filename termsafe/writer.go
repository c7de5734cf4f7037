package termsafe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer escapes everything written through it (as Escape does) before
// it reaches the underlying writer, for a command's output to a
// terminal. A character split across two writes is escaped whole: the
// start of an unfinished UTF-8 sequence waits for the next write or
// Flush. It is safe for concurrent use (a controller's logger and its
// notices share stderr).
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	carry []byte
}

// NewWriter returns a Writer that escapes onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p onto the underlying writer. It reports len(p) when
// the escaped text was written, because the caller's bytes were
// consumed, not copied one for one.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.carry, p...)
	cut := len(buf) - unfinished(buf)
	w.carry = append(w.carry[:0:0], buf[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, Escape(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what waits for the rest of a character: at the end of
// the output it never comes, so the bytes are escaped as they are.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.carry) == 0 {
		return nil
	}
	s := Escape(string(w.carry))
	w.carry = nil
	_, err := io.WriteString(w.w, s)
	return err
}

// unfinished returns how many bytes at the end of b are the start of a
// UTF-8 sequence that has not ended yet (0 to 3).
func unfinished(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}
