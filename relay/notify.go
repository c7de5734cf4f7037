package relay

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Notify pushes n to every connection that observes. It never blocks and
// never waits for a reader: each connection has a bounded queue, and a
// reader that falls behind loses worker output first, then the oldest
// notices, and is told how many with a NoticeDropped notice.
//
// A worker output line too long for one protocol line is cut to fit and
// marked Truncated (without its Parts). Notify returns an *Error (bad_request) for a notice
// whose Kind does not match its fields, and too_large for any other notice
// over the line cap.
func (s *Server) Notify(n Notice) error {
	if err := n.check(); err != nil {
		return err
	}
	line, err := noticeLine(n, s.cfg.MaxLine)
	if err != nil {
		return err
	}
	key, droppable := n.queueKey()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.conns {
		if c.observing.Load() {
			c.notices.push(key, droppable, len(line), line)
		}
	}
	return nil
}

// noticeLine encodes n once, for every connection, with the newline.
func noticeLine(n Notice, maxLine int) ([]byte, error) {
	line, err := encodeNotice(n)
	if err != nil {
		return nil, err
	}
	if len(line)-1 <= maxLine {
		return line, nil
	}
	if n.Kind != NoticeWorkerOutput {
		return nil, &Error{Code: CodeTooLarge, Detail: fmt.Sprint(maxLine)}
	}
	text := n.Output.Line
	out := *n.Output
	out.Truncated = true
	// A line too long for the cap goes as the controller's wording, cut:
	// its parts would have to be cut one by one.
	out.Line, out.Parts = "", nil
	n.Output = &out
	empty, err := encodeNotice(n)
	if err != nil {
		return nil, err
	}
	budget := maxLine - (len(empty) - 1)
	if budget < 0 {
		return nil, &Error{Code: CodeTooLarge, Detail: fmt.Sprint(maxLine)}
	}
	out.Line = jsonPrefix(text, budget)
	// jsonPrefix errs on the short side; the check is a safety net.
	if line, err = encodeNotice(n); err != nil || len(line)-1 > maxLine {
		return nil, &Error{Code: CodeTooLarge, Detail: fmt.Sprint(maxLine)}
	}
	return line, nil
}

// jsonPrefix returns the longest prefix of s, whole characters only, whose
// JSON string encoding takes at most budget bytes (quotes excluded). It
// counts as encoding/json escapes, rounding up where unsure.
func jsonPrefix(s string, budget int) string {
	used := 0
	for i, r := range s {
		size := utf8.RuneLen(r)
		switch {
		case r == utf8.RuneError:
			size = 6 // invalid bytes become \ufffd
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			size = 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
			size = 6
		}
		if used+size > budget {
			return s[:i]
		}
		used += size
	}
	return s
}

// encodeNotice renders a notice envelope. It splices the body in rather
// than marshal an Envelope, which would validate and copy the body again:
// Notify is the one hot path of the server.
func encodeNotice(n Notice) ([]byte, error) {
	body, err := json.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("relay: encode notice: %w", err)
	}
	line := make([]byte, 0, len(body)+40)
	line = fmt.Appendf(line, `{"v":%d,"type":"notice","body":`, Version)
	line = append(line, body...)
	return append(line, '}', '\n'), nil
}
