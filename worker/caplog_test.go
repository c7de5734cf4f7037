package worker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLogCapKeepsTheTail appends ten times the limit in uneven chunks,
// as a worker writing into its log does, and lets the cap look after
// each: the disk the log takes never passes the limit by more than a
// block, the file keeps its length (offsets into it stay valid), the
// data past the hole is the tail of what was written, and the cut counts
// every byte the hole took.
func TestLogCapKeepsTheTail(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	f, err := os.OpenFile(filepath.Join(t.TempDir(), StdoutLog), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := newLogCap(f, limit, 0)
	var all bytes.Buffer
	for i := 0; all.Len() < 10*limit; i++ {
		chunk := []byte(fmt.Sprintf("line %d %s\n", i, bytes.Repeat([]byte("x"), i%700)))
		if i%97 == 0 {
			chunk = bytes.Repeat([]byte{'y'}, limit) // one write larger than half the limit
		}
		all.Write(chunk)
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		c.keep(int64(all.Len()))
		if c.err != nil {
			t.Skipf("this file system cannot punch holes: %v", c.err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		if st.Size != int64(all.Len()) {
			t.Fatalf("the log is %d bytes long after %d were written", st.Size, all.Len())
		}
		if disk := st.Blocks * 512; disk > limit+2*c.block {
			t.Fatalf("after %d bytes the log takes %d on disk, limit %d", all.Len(), disk, limit)
		}
	}
	got, length, err := ReadLog(f.Name())
	if err != nil || length != int64(all.Len()) {
		t.Fatalf("ReadLog: %d bytes long (%v), want %d", length, err, all.Len())
	}
	start := length - int64(len(got))
	if !bytes.Equal(got, all.Bytes()[start:]) {
		t.Errorf("the log's data (%d bytes from %d) is not the tail of what was written", len(got), start)
	}
	if c.cut != start || start == 0 {
		t.Errorf("cut %d, the data starts at %d: want them equal and above 0", c.cut, start)
	}
	if len(got) < limit/2 {
		t.Errorf("the cap kept %d bytes, want at least half the limit (%d)", len(got), limit/2)
	}
}
