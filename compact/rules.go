package compact

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/daokit/daokit/compact/internal/rawjson"
)

// The keep/drop vocabulary. It is the Python DAOKit's (src/hooks/
// compaction.py) plus what that version missed: "stack trace" and HTML
// doctype pages among dumps, whole JSON bodies stored as text, and error
// dump folders among evidence paths.
var (
	// finishedStatuses mark execution logs of work that is over.
	finishedStatuses = []string{"accepted", "completed", "done", "resolved", "success"}
	// resolvedStatus marks failure noise that is over.
	resolvedStatus = []string{"resolved"}
	// noiseText marks an API error message as an unstructured dump.
	noiseText = []string{"<html", "<!doctype", "<?xml", "api error dump", "stacktrace", "stack trace", "traceback"}
	// noisePaths mark evidence paths that point at dumps, not evidence.
	noisePaths = []string{"api_error_dump", "error_dump", "error-dump", "stacktrace", "stack_trace", "stderr", "stdout", "traceback"}
)

// lowerIs reports whether the lower-cased text equals one of words (which
// are ASCII). Python lowers with str.lower; only non-ASCII text needs the
// full Unicode mapping, so ASCII text is compared without a copy.
func lowerIs(text []byte, words []string) bool {
	for _, c := range text {
		if c >= utf8.RuneSelf {
			lower := strings.ToLower(string(text))
			return indexOf(words, lower) >= 0
		}
	}
	for _, w := range words {
		if len(w) == len(text) && asciiLowerEqual(text, w) {
			return true
		}
	}
	return false
}

func asciiLowerEqual(text []byte, word string) bool {
	for i, c := range text {
		if lowerASCII(c) != word[i] {
			return false
		}
	}
	return true
}

// containsAnyLower reports whether the lower-cased text contains one of
// tokens (which are lower-case ASCII). Short ASCII text is lowered into a
// buffer on the stack; other text with Python's str.lower rules as Go has
// them.
func containsAnyLower(text []byte, tokens []string) bool {
	var buf [256]byte
	lower := buf[:0]
	for _, c := range text {
		if c >= utf8.RuneSelf || len(lower) == len(buf) {
			lower = []byte(strings.ToLower(string(text)))
			break
		}
		lower = append(lower, lowerASCII(c))
	}
	for _, t := range tokens {
		if bytes.Contains(lower, []byte(t)) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isDump reports whether an API error message is an unstructured dump: it
// names a traceback or an HTML page, or it is a whole JSON body kept as
// text.
func isDump(text []byte) bool {
	if len(text) > 0 && (text[0] == '{' || text[0] == '[') {
		if rawjson.Valid(text) {
			return true
		}
	}
	return containsAnyLower(text, noiseText)
}

// isNoisePath reports whether an evidence path points at a dump.
func isNoisePath(text []byte) bool {
	return containsAnyLower(text, noisePaths)
}

// errorCode returns the first match of the Python rule's \bE_[A-Z0-9_]+\b
// in text, with \b meaning what it means for Python's Unicode patterns, or
// "" if there is none.
func errorCode(text []byte) string {
	for i := 0; i < len(text); {
		j := bytes.Index(text[i:], []byte("E_"))
		if j < 0 {
			return ""
		}
		j += i
		i = j + 1
		if before, _ := utf8.DecodeLastRune(text[:j]); j > 0 && isWordRune(before) {
			continue
		}
		k := j + 2
		for k < len(text) && isCodeByte(text[k]) {
			k++
		}
		if k == j+2 {
			continue
		}
		// [A-Z0-9_]+ is greedy and every shorter match ends before a
		// word character, so only the longest can end at a boundary.
		if after, _ := utf8.DecodeRune(text[k:]); k == len(text) || !isWordRune(after) {
			return string(text[j:k])
		}
	}
	return ""
}

func isCodeByte(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' }

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// cleanPath is the identity of an evidence path: "./a//b" repeats "a/b".
func cleanPath(text []byte) string { return path.Clean(string(text)) }

// appendCleanPath appends cleanPath(text) to dst, copying text as it is
// when it is clean already, which most paths are.
func appendCleanPath(dst, text []byte) []byte {
	if isCleanPath(text) {
		return append(dst, text...)
	}
	return append(dst, cleanPath(text)...)
}

// isCleanPath reports whether path.Clean leaves text as it is: no empty
// or "." element, ".." only at the start of a relative path, no trailing
// slash.
func isCleanPath(text []byte) bool {
	n := len(text)
	switch {
	case n == 0 || n > 1 && text[n-1] == '/':
		return false
	case string(text) == "." || string(text) == "/":
		return true
	}
	rooted := text[0] == '/'
	rest := text
	if rooted {
		rest = text[1:]
	}
	leading := !rooted
	for {
		i := bytes.IndexByte(rest, '/')
		elem := rest
		if i >= 0 {
			elem = rest[:i]
		}
		switch string(elem) {
		case "", ".":
			return false
		case "..":
			if !leading {
				return false
			}
		default:
			leading = false
		}
		if i < 0 {
			return true
		}
		rest = rest[i+1:]
	}
}
