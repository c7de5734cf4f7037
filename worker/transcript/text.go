package transcript

import (
	"strings"
	"unicode/utf8"
)

// maxDetail bounds the text of events taken from agent CLIs (a tool
// argument, a tool's output): the event is a digest line, the artifact
// file has the whole of it.
const maxDetail = 200

// OneLine returns the first non-blank line of s, cut to max runes with an
// ellipsis.
func OneLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return cutRunes(s, max)
}

// cutRunes cuts s to at most max runes, marking a cut with "…".
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
