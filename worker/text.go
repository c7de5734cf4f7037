package worker

import (
	"strings"
	"unicode/utf8"
)

// maxDetail bounds the text of events taken from agent CLIs (a tool
// argument, a tool's output): the event is a digest line, the artifact
// file has the whole of it.
const maxDetail = 200

// oneLine returns the first non-blank line of s, cut to max runes with an
// ellipsis.
func oneLine(s string, max int) string {
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

// cutBytes cuts b to at most max bytes without splitting a UTF-8
// sequence.
func cutBytes(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	cut := max
	// Step back over continuation bytes to the start of the rune that
	// straddles the limit.
	for cut > 0 && cut > max-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut]
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, left
// by a cut at a byte limit.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
