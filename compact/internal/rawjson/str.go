package rawjson

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Plain reports whether the JSON string s (quotes included) needs no
// decoding: no escapes and valid UTF-8, so its content is its text.
func Plain(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	c := s[1 : len(s)-1]
	if len(c) > 16 {
		return bytes.IndexByte(c, '\\') < 0 && utf8.Valid(c)
	}
	for i, b := range c {
		if b == '\\' {
			return false
		}
		if b >= utf8.RuneSelf {
			return bytes.IndexByte(c[i:], '\\') < 0 && utf8.Valid(c[i:])
		}
	}
	return true
}

// PlainValue reports whether the compact JSON value v holds no escapes and
// only valid UTF-8, so that each string in it is its own text. Most
// entries of a context are plain, and the *Plain functions skip the
// per-string checks for them.
func PlainValue(v []byte) bool {
	return bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v)
}

// Text returns the text of the JSON string s. When s needs decoding the
// text is written to *buf, which grows as needed, so the result may alias
// s or *buf and is valid until the next use of *buf.
func Text(s []byte, buf *[]byte) []byte {
	if Plain(s) {
		return s[1 : len(s)-1]
	}
	*buf = AppendUnquote((*buf)[:0], s)
	return *buf
}

// AppendUnquote appends the text of the JSON string s (quotes included) to
// dst. Invalid UTF-8 and unpaired surrogates become U+FFFD, as with
// encoding/json.
func AppendUnquote(dst, s []byte) []byte {
	// jsontext reports those replacements as an error after making them;
	// for a string that Compact accepted, what it appended is the text.
	dst, _ = jsontext.AppendUnquote(dst, s)
	return dst
}

const hexDigits = "0123456789abcdef"

// AppendQuote appends text as a JSON string the way Python's json.dumps
// with ensure_ascii=True writes it.
func AppendQuote(dst, text []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, text[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			if c < utf8.RuneSelf {
				dst = appendU(dst, rune(c))
				break
			}
			r, size := utf8.DecodeRune(text[i:])
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				dst = appendU(appendU(dst, hi), lo)
			} else {
				dst = appendU(dst, r) // RuneError too: invalid input becomes \ufffd
			}
			i += size
			start = i
			continue
		}
		i++
		start = i
	}
	dst = append(dst, text[start:]...)
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// Canonical reports whether the JSON string s is already written the way
// AppendQuote writes its text: printable ASCII without escapes needing a
// rewrite.
func Canonical(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	for _, c := range s[1 : len(s)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// IsSpace reports whether Python's str.strip removes r: Unicode white
// space plus the four ASCII separators U+001C..U+001F, which Python counts
// as space and Go does not.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// TrimSpace trims text as Python's str.strip does.
func TrimSpace(text []byte) []byte {
	return bytes.TrimFunc(text, IsSpace)
}

// Trimmed reports whether the text of the JSON string s is non-empty and
// has no surrounding space; buf is used as by Text.
func Trimmed(s []byte, buf *[]byte) bool {
	if len(s) <= 2 {
		return false
	}
	t := s[1 : len(s)-1]
	// Without escapes the edges of the text are the edges of the content;
	// invalid UTF-8 there reads as U+FFFD either way, which is not space.
	if bytes.IndexByte(t, '\\') >= 0 {
		if t = Text(s, buf); len(t) == 0 {
			return false
		}
	}
	return edgesTrimmed(t)
}

// TrimmedPlain is Trimmed for a string of a PlainValue.
func TrimmedPlain(s []byte) bool {
	return len(s) > 2 && edgesTrimmed(s[1:len(s)-1])
}

// edgesTrimmed reports whether the non-empty text t starts and ends with
// something other than space.
func edgesTrimmed(t []byte) bool {
	if c := t[0]; c < utf8.RuneSelf {
		if c <= ' ' && IsSpace(rune(c)) {
			return false
		}
	} else if r, _ := utf8.DecodeRune(t); IsSpace(r) {
		return false
	}
	if c := t[len(t)-1]; c < utf8.RuneSelf {
		return c > ' ' || !IsSpace(rune(c))
	}
	r, _ := utf8.DecodeLastRune(t)
	return !IsSpace(r)
}
