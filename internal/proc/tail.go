package proc

import "sync"

// Tail is an io.Writer that keeps the last Max bytes written to it: a
// child's output kept for its reason, whatever it prints. It is safe for
// the two copying goroutines of a command's stdout and stderr.
type Tail struct {
	Max int

	mu  sync.Mutex
	buf []byte
	cut bool
}

// Write implements io.Writer.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// String returns what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Cut reports whether earlier output was dropped.
func (t *Tail) Cut() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cut
}
