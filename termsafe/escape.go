package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Escape returns s with every control character, escape sequence
// introducer, invalid byte and invisible format character written as a
// visible escape (see the package comment); tabs and line feeds pass.
// Text with nothing to escape is returned as it is.
func Escape(s string) string { return escape(s, false) }

// Line is Escape for text drawn on one row: tabs, carriage returns and
// line feeds become spaces, everything else is escaped as Escape does.
func Line(s string) string { return escape(s, true) }

// Clean reports whether Escape(s) == s: s holds nothing a terminal would
// act on.
func Clean(s string) bool { return clean(s, false) }

func escape(s string, line bool) string {
	if clean(s, line) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	Visit(s, line, func(part string, _ bool) { b.WriteString(part) })
	return b.String()
}

// clean is the fast path: printable ASCII (and, outside line mode, tabs
// and line feeds) with runes that need no escape.
func clean(s string, line bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if needsByteEscape(c) || line && (c == '\t' || c == '\n') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || needsRuneEscape(r) {
			return false
		}
		i += size
	}
	return true
}

// Visit calls fn with s cut into parts, in order: runs of text that pass
// as they are (escaped false) and each visible escape (escaped true), as
// Escape writes them (Line's form when line is set). Joined, the parts
// are Escape(s) (or Line(s)); a view marks the escaped parts so that they
// stand out from text that merely looks like an escape.
func Visit(s string, line bool, fn func(part string, escaped bool)) {
	start := 0
	flush := func(i int) {
		if i > start {
			fn(s[start:i], false)
		}
	}
	var buf [10]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case line && (c == '\t' || c == '\n' || c == '\r'):
				flush(i)
				fn(" ", false)
				start = i + 1
			case needsByteEscape(c):
				flush(i)
				fn(string(byteEscape(buf[:0], c)), true)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			flush(i)
			fn(string(byteEscape(buf[:0], c)), true)
			start = i + 1
		case needsRuneEscape(r):
			flush(i)
			fn(string(runeEscape(buf[:0], r)), true)
			start = i + size
		}
		i += size
	}
	flush(len(s))
}

// needsByteEscape reports an ASCII byte a terminal acts on: C0 controls
// but tab and line feed, and DEL.
func needsByteEscape(c byte) bool {
	return c < 0x20 && c != '\t' && c != '\n' || c == 0x7f
}

// needsRuneEscape reports a non-ASCII rune that is a C1 control or that
// is invisible and changes how the text around it reads: format
// characters (bidi controls, zero-width space, BOM, soft hyphen, tags)
// and line or paragraph separators. ZWNJ and ZWJ pass: emoji sequences
// and Indic and Arabic scripts need them.
func needsRuneEscape(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x200c || r == 0x200d:
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// byteEscape appends the escape of byte c: \xNN.
func byteEscape(dst []byte, c byte) []byte {
	return append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
}

// runeEscape appends the escape of rune r: \uNNNN, or \UNNNNNNNN above
// the Basic Multilingual Plane.
func runeEscape(dst []byte, r rune) []byte {
	digits := 4
	if r > 0xffff {
		dst = append(dst, '\\', 'U')
		digits = 8
	} else {
		dst = append(dst, '\\', 'u')
	}
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(r>>shift)&0xf])
	}
	return dst
}
