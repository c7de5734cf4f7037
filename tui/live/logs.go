package live

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"

	tea "github.com/charmbracelet/bubbletea"
)

// LogTail bounds how much of a step's log one read takes: the first read
// of a long log starts this far from its end (a log keeps up to 64 MiB),
// and a log that grew by more since the last read skips to it.
const LogTail = 1 << 20

// LogMsg is what LoadLog read of a step's log: Data from byte From up to
// Size, the file's size when read. Reset says that the read does not
// follow on from the previous one (a first read, a log cut at its head
// or replaced, or one that grew past LogTail): the reader starts over
// with Data. A log that does not exist yet reads as empty.
type LogMsg struct {
	Path  string
	From  int64
	Size  int64
	Data  []byte
	Reset bool
	Err   error
	// Worker is the attempts folder of a Lead's Worker whose latest
	// attempt was read (LoadWorkerLog), Attempt that attempt; "" and 0
	// for a step's log.
	Worker  string
	Attempt int
}

// LoadLog reads path from offset on (at most LogTail bytes, the newest),
// off the Update path. offset < 0 means a first read. A read of a local
// file of bounded size needs no context.
func LoadLog(path string, offset int64) tea.Cmd {
	return func() tea.Msg {
		msg := LogMsg{Path: path, From: offset}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			msg.From, msg.Reset = 0, offset != 0
			return msg
		}
		if err != nil {
			msg.Err = err
			return msg
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			msg.Err = err
			return msg
		}
		msg.Size = st.Size()
		if offset < 0 || msg.Size < offset || msg.Size-offset > LogTail {
			msg.From, msg.Reset = max(msg.Size-LogTail, 0), true
		}
		msg.Data = make([]byte, msg.Size-msg.From)
		n, err := f.ReadAt(msg.Data, msg.From)
		msg.Data = msg.Data[:n]
		if err != nil && !errors.Is(err, io.EOF) {
			msg.Err = err
		}
		msg.Size = msg.From + int64(n)
		// A log past its cap has a hole of zero bytes at its head (the
		// file keeps its length so that offsets stay valid): not output.
		msg.Data = bytes.TrimLeft(msg.Data, "\x00")
		return msg
	}
}
