package worker

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/daokit/daokit/worker/transcript"
)

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
