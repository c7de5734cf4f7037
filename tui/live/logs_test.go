package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadLog reads a log from where the last read ended, starts over when
// the log became shorter, skips the zero bytes of a capped log's
// hole, and reads a missing log as empty.
func TestLoadLogFollowsAFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stdout.log")
	read := func(offset int64) LogMsg {
		t.Helper()
		msg := LoadLog(path, offset)().(LogMsg)
		if msg.Err != nil {
			t.Fatal(msg.Err)
		}
		return msg
	}
	if m := read(-1); len(m.Data) != 0 || m.Size != 0 {
		t.Errorf("missing log read as %+v", m)
	}
	write := func(s string, flag int) {
		t.Helper()
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write("one\ntw", os.O_TRUNC)
	first := read(-1)
	if string(first.Data) != "one\ntw" || !first.Reset || first.Size != 6 {
		t.Errorf("first read %+v", first)
	}
	write("o\n", os.O_APPEND)
	next := read(first.Size)
	if string(next.Data) != "o\n" || next.Reset || next.From != 6 {
		t.Errorf("next read %+v", next)
	}
	write("new\n", os.O_TRUNC)
	cut := read(next.Size)
	if !cut.Reset || string(cut.Data) != "new\n" || cut.From != 0 {
		t.Errorf("read after the log was cut %+v", cut)
	}
	write(strings.Repeat("\x00", 100)+"after the hole\n", os.O_TRUNC)
	if hole := read(-1); string(hole.Data) != "after the hole\n" {
		t.Errorf("read of a log with a hole at its head %+v", hole)
	}
}
