package bundle

import (
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// readText is Python's Path.read_text(encoding="utf-8"): the file as
// text with "\r\n" and "\r" read as "\n" (universal newlines). Text that
// is not UTF-8 is an error (Python raises; the manifest and the index are
// meant to be text).
func readText(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", &Error{Kind: Unreadable, Path: path, Err: err}
	}
	if !utf8.Valid(data) {
		return "", &Error{Kind: NotText, Path: path}
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// splitLines is Python's str.splitlines(): every line boundary Python
// knows, no empty last line for a final newline.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			lines = append(lines, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// pyStrip is Python's str.strip(): Python's whitespace includes the
// information separators U+001C..U+001F, which Go's does not.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}
