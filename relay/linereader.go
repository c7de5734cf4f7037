package relay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errLineTooLong is returned by lineReader.next for a line over the cap.
var errLineTooLong = errors.New("relay: line too long")

// lineReader reads newline-terminated lines and enforces the size cap while
// reading: it never holds more than max bytes of one line, however long
// the line the peer sends.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	// A buffer no larger than a line (plus "\r\n") notices an endless
	// line as soon as it passes the cap, even when the peer then waits.
	// It stays small (4 KiB) because every connection holds one while it
	// waits: a longer line is gathered in buf.
	return &lineReader{br: bufio.NewReaderSize(r, min(4<<10, max+2)), max: max}
}

// inLine reports whether part of a line has been read but not its
// newline.
func (r *lineReader) inLine() bool { return len(r.buf) > 0 || r.br.Buffered() > 0 }

// next returns the next line without its "\n" (or "\r\n"). The slice is
// valid until the following call. A final line without a newline is not a
// line: the peer went away in the middle of it, and next returns
// io.ErrUnexpectedEOF.
func (r *lineReader) next() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk[:len(chunk)-1]
			if len(r.buf) > 0 {
				r.buf = append(r.buf, line...)
				line = r.buf
			}
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) > r.max {
				return nil, errLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.buf)+len(chunk) > r.max+1 {
				return nil, errLineTooLong
			}
			r.buf = append(r.buf, chunk...)
		case errors.Is(err, io.EOF):
			if len(r.buf)+len(chunk) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
