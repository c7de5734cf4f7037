package worker

import "bytes"

// splitter cuts a byte stream into lines at "\n", keeping at most limit
// bytes of each line so that a worker that never ends its line cannot grow
// memory; size still counts the whole line.
type splitter struct {
	limit int
	buf   []byte // the line so far, at most limit bytes
	size  int    // bytes of the line so far, including what was cut
}

// shrinkAbove is the capacity beyond which buf is released after a line,
// so that one huge line does not pin its buffer for the process's life.
const shrinkAbove = 1 << 20

// feed splits chunk, calling emit for each complete line. emit must not
// keep line after it returns.
func (s *splitter) feed(chunk []byte, emit func(line []byte, size int)) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if i >= 0 && s.size == 0 {
			// A whole line inside the chunk: no copy needed.
			emit(part[:min(len(part), s.limit)], len(part))
			chunk = chunk[i+1:]
			continue
		}
		s.size += len(part)
		if room := s.limit - len(s.buf); room > 0 {
			s.buf = append(s.buf, part[:min(room, len(part))]...)
		}
		if i < 0 {
			return
		}
		s.emitBuffered(emit)
		chunk = chunk[i+1:]
	}
}

// flush emits a last line that had no newline.
func (s *splitter) flush(emit func(line []byte, size int)) {
	if s.size > 0 {
		s.emitBuffered(emit)
	}
}

func (s *splitter) emitBuffered(emit func(line []byte, size int)) {
	emit(s.buf, s.size)
	s.size = 0
	if cap(s.buf) > shrinkAbove {
		s.buf = nil
	} else {
		s.buf = s.buf[:0]
	}
}

// reset forgets the line so far: the bytes after it were cut (see
// logCap), so what follows starts a line of its own.
func (s *splitter) reset() {
	s.size = 0
	s.buf = s.buf[:0]
}
