package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/daokit/daokit/worker/transcript"
)

// TestFollowSkipsWhatTheCapCutBeforeItWasRead: a worker can write far
// faster than its log is read. Here the whole flood, twenty times the
// limit, is in the log before the follower starts: the cap goes by the
// log's length, so the follower skips what was cut unread instead of
// reading it, the disk the log takes stays within the limit, every byte
// counts as written, and the last lines arrive whole.
func TestFollowSkipsWhatTheCapCutBeforeItWasRead(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	f, err := os.OpenFile(filepath.Join(t.TempDir(), StdoutLog), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var written bytes.Buffer
	for i := 0; written.Len() < 20*limit; i++ {
		written.WriteString(strings.Repeat("x", 1000) + "\n")
	}
	written.WriteString("the end\n")
	if _, err := f.Write(written.Bytes()); err != nil {
		t.Fatal(err)
	}

	p := &Process{
		spec:  Spec{LogLimit: limit, Kind: "command"}.withDefaults(),
		queue: newRecordQueue(1<<20, 1<<30),
		dec:   transcript.NewDecoder("command"),
	}
	gone := make(chan struct{})
	close(gone)
	var wg sync.WaitGroup
	wg.Add(1)
	p.follow(transcript.Stdout, f, 0, gone, &wg)
	p.queue.close(transcript.Record{Status: transcript.StatusGap})

	var recs []transcript.Record
	for {
		r, ok := p.queue.pop()
		if !ok {
			break
		}
		recs = append(recs, r)
	}
	st := p.Stats()
	if st.LogCutBytes == 0 {
		t.Skip("this file system cannot punch holes")
	}
	if st.StdoutBytes != int64(written.Len()) || st.StdoutLogBytes != int64(written.Len()) {
		t.Errorf("stdout bytes %d, log %d: want all %d written", st.StdoutBytes, st.StdoutLogBytes, written.Len())
	}
	if read := st.StdoutLines; read*1001 > 2*limit {
		t.Errorf("read %d lines: want only what the cap kept (at most about %d)", read, 2*limit/1001)
	}
	if n := len(recs); n == 0 || recs[n-1].Text != "the end" {
		t.Errorf("the last record is not the last line: %d records, the last %+v", n, recs[max(n-1, 0):])
	}
	var sys syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &sys); err != nil {
		t.Fatal(err)
	}
	if disk := sys.Blocks * 512; disk > limit+64<<10 {
		t.Errorf("the log takes %d bytes on disk, limit %d", disk, limit)
	}
}
