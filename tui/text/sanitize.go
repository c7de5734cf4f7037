package text

import (
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/daokit/daokit/termsafe"
)

// Sanitize makes untrusted text (worker output, goals, event payloads,
// diff lines) safe to draw on one line without hiding any of it: tabs
// and line breaks become spaces, and control characters, escape
// sequence introducers and invisible format characters are shown as
// visible escapes (`\x1b[1A`, `\u202e`), the form the CLI prints too
// (package termsafe). When wide is set (the person's terminal draws East
// Asian ambiguous characters two cells wide), those characters are
// replaced by ASCII look-alikes or "?", because the layout measures them
// as one cell.
func Sanitize(s string, wide bool) string {
	if isPlain(s) {
		return s
	}
	s = termsafe.Line(s)
	if !wide {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if runewidth.IsAmbiguousWidth(r) {
			b.WriteString(asciiFor(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SanitizeLines is Sanitize for text whose line breaks matter (a payload
// shown in a detail view): it keeps the lines and cleans each.
func SanitizeLines(s string, wide bool) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = Sanitize(l, wide)
	}
	return lines
}

// isPlain reports whether s is printable ASCII, the common case that
// needs no work.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// asciiFor maps the ambiguous characters agents commonly print to ASCII.
func asciiFor(r rune) string {
	switch r {
	case '…':
		return "..."
	case '·', '•', '●', '○', '◦':
		return "*"
	case '─', '━', '—', '–':
		return "-"
	case '│', '┃':
		return "|"
	case '‘', '’':
		return "'"
	case '“', '”':
		return `"`
	case '→':
		return "->"
	case '←':
		return "<-"
	case '×':
		return "x"
	}
	return "?"
}
