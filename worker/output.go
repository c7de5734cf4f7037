package worker

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/daokit/daokit/worker/transcript"
)

// read copies one pipe to its artifact file and cuts it into records.
func (p *Process) read(stream transcript.Stream, f, artifact *os.File, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, 64<<10)
	sp := splitter{limit: p.spec.readLimit()}
	emit := func(line []byte, size int) { p.handleLine(stream, line, size) }
	var log *cappedLog
	if artifact != nil {
		var err error
		if log, err = newCappedLog(artifact, p.spec.LogLimit); err != nil {
			p.artifactFailed(err)
		}
	}
	defer func() {
		if log != nil {
			p.mu.Lock()
			p.stats.LogCutBytes += log.cut
			if stream == transcript.Stdout {
				p.stats.StdoutLogBytes = log.size
			} else {
				p.stats.StderrLogBytes = log.size
			}
			p.mu.Unlock()
		}
	}()
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.activity.Store(time.Now().UnixNano())
			p.countBytes(stream, n)
			// Bytes go to the artifact before anything else, so that the
			// file has them whatever becomes of the records.
			// A failed write (a full disk) loses those bytes, counted as
			// cut, but not the log: later output is written again.
			if log != nil {
				if werr := log.Write(buf[:n]); werr != nil {
					p.artifactFailed(werr)
					log.cut += int64(n)
				}
			}
			sp.feed(buf[:n], emit)
		}
		if err != nil {
			break
		}
	}
	sp.flush(emit)
}

func (p *Process) countBytes(stream transcript.Stream, n int) {
	p.mu.Lock()
	if stream == transcript.Stdout {
		p.stats.StdoutBytes += int64(n)
	} else {
		p.stats.StderrBytes += int64(n)
	}
	p.mu.Unlock()
}

func (p *Process) artifactFailed(err error) {
	p.mu.Lock()
	if p.artErr == nil {
		p.artErr = err
	}
	p.mu.Unlock()
}

// handleLine decodes one line, keeps the counts and the summary, and
// queues the record.
func (p *Process) handleLine(stream transcript.Stream, line []byte, size int) {
	p.mu.Lock()
	rec := decodeLine(p.dec, stream, line, size, p.spec.LineLimit, &p.stats, &p.summary)
	p.mu.Unlock()
	p.queue.push(rec)
}

// decodeLine turns one line of a worker's output into its Record,
// counting it in stats and keeping what matters in summary: the one way
// a line is read, whether it comes from the pipe or back from the
// artifact log (see Replay).
func decodeLine(dec transcript.Decoder, stream transcript.Stream, line []byte, size, limit int, stats *Stats, summary *Summary) transcript.Record {
	now := time.Now()
	kept := len(line)
	line = bytes.TrimSuffix(line, []byte("\r"))
	d := dec.Decode(stream, line)
	if stream == transcript.Stdout {
		stats.StdoutLines++
	} else {
		stats.StderrLines++
	}
	switch d.Status {
	case transcript.StatusUnknown:
		stats.Unknown++
	case transcript.StatusMalformed:
		stats.Malformed++
	}
	stats.Events += int64(len(d.Events))
	for _, ev := range d.Events {
		summary.apply(ev)
	}
	text := cutBytes(line, limit)
	truncated := size > kept || len(text) < len(line)
	if truncated {
		text = trimPartialRune(text)
		stats.Truncated++
	}
	s := string(text)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return transcript.Record{Time: now, Stream: stream, Text: s, Size: size, Truncated: truncated, Status: d.Status, Events: d.Events}
}
