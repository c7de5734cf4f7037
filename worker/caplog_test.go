package worker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCappedLogKeepsTheTail writes ten times the limit in uneven chunks:
// the file never passes the limit, ends with the last bytes written, and
// the cut counts every byte it lost.
func TestCappedLogKeepsTheTail(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	f, err := os.OpenFile(filepath.Join(t.TempDir(), StdoutLog), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := newCappedLog(f, limit)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for i := 0; all.Len() < 10*limit; i++ {
		chunk := []byte(fmt.Sprintf("line %d %s\n", i, bytes.Repeat([]byte("x"), i%700)))
		if i%97 == 0 {
			chunk = bytes.Repeat([]byte{'y'}, limit) // one write larger than half the limit
		}
		all.Write(chunk)
		if err := l.Write(chunk); err != nil {
			t.Fatal(err)
		}
		if st, _ := f.Stat(); st.Size() > limit {
			t.Fatalf("after %d bytes the log holds %d, limit %d", all.Len(), st.Size(), limit)
		}
	}
	got, _ := os.ReadFile(f.Name())
	if !bytes.HasSuffix(all.Bytes(), got) {
		t.Errorf("the log (%d bytes) is not the tail of what was written", len(got))
	}
	if l.cut != int64(all.Len()-len(got)) {
		t.Errorf("cut %d, want %d", l.cut, all.Len()-len(got))
	}
}
