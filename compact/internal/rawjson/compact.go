package rawjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth is how deeply arrays and objects may nest: the limit of
// jsontext, which validates documents for this package. It keeps every
// recursive walker of this package on a bounded stack.
const MaxDepth = 10000

// ErrorKind says what is wrong with an invalid document.
type ErrorKind int

// Error kinds of a SyntaxError.
const (
	// ErrEnd means the document ends inside a value.
	ErrEnd ErrorKind = iota + 1
	// ErrChar means a character stands where JSON does not allow it.
	ErrChar
	// ErrTrailing means more data follows the one value of the document.
	ErrTrailing
	// ErrDepth means arrays and objects nest deeper than MaxDepth.
	ErrDepth
)

// SyntaxError reports invalid JSON and where it starts: the kinds a
// person can act on, which the command line translates.
type SyntaxError struct {
	Kind   ErrorKind
	Offset int  // byte offset of the problem in the input
	Char   rune // the offending character, for ErrChar
	// Pointer is the JSON Pointer (RFC 6901) of the value the problem
	// is in, "" for the document itself.
	Pointer string
	err     error // what jsontext said
}

// Error says what is wrong and at which byte.
func (e *SyntaxError) Error() string {
	switch e.Kind {
	case ErrEnd:
		return fmt.Sprintf("unexpected end of JSON input at byte %d", e.Offset)
	case ErrTrailing:
		return fmt.Sprintf("data after the JSON value at byte %d", e.Offset)
	case ErrDepth:
		return fmt.Sprintf("JSON nested deeper than %d levels at byte %d", MaxDepth, e.Offset)
	default:
		return fmt.Sprintf("invalid character %q at byte %d", e.Char, e.Offset)
	}
}

// Unwrap returns the validator's own error.
func (e *SyntaxError) Unwrap() error { return e.err }

// Compact validates src, which must hold exactly one JSON value with
// optional surrounding whitespace, and appends it to dst without
// insignificant whitespace. Strings are copied as they are written,
// escapes included; duplicate names and invalid UTF-8 are accepted, as
// Python's json.loads and encoding/json accept them. An invalid src is a
// *SyntaxError and leaves dst as it was.
//
// jsontext judges validity. Dropping the whitespace of a valid document
// is then one copy: jsontext's own Value.Compact builds the result in a
// buffer that grows by doubling, about three times the document in
// garbage (64 MB for a 20 MB context).
func Compact(dst, src []byte) ([]byte, error) {
	if !Valid(src) {
		v := jsontext.Value(bytes.Clone(src))
		err := v.Compact() // says what is wrong, and where
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return dst, syntaxError(src, err)
	}
	return appendCompact(dst, src), nil
}

// appendCompact appends valid JSON src to dst without the whitespace
// between its tokens, copying what lies between runs of whitespace at once.
func appendCompact(dst, src []byte) []byte {
	start := 0 // of the text not copied yet
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case !insignificant[c]:
			i++
		case c == '"':
			i = skipString(src, i)
		default:
			dst = append(dst, src[start:i]...)
			for i < len(src) && insignificant[src[i]] && src[i] != '"' {
				i++
			}
			start = i
		}
	}
	return append(dst, src[start:]...)
}

// insignificant marks the bytes appendCompact stops at: whitespace, and
// the quote that opens a string, in which whitespace is kept.
var insignificant = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '"': true}

// Valid reports whether text is one JSON value, with Compact's leniency.
func Valid(text []byte) bool {
	return jsontext.Value(text).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// syntaxError sorts what jsontext reports about src into the kinds of
// SyntaxError.
func syntaxError(src []byte, err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return err
	}
	off := min(int(se.ByteOffset), len(src))
	out := &SyntaxError{Kind: ErrChar, Offset: off, Pointer: string(se.JSONPointer), err: err}
	depth := 0
	for range se.JSONPointer.Tokens() {
		depth++
	}
	switch {
	case errors.Is(se.Err, io.ErrUnexpectedEOF) || off == len(src):
		out.Kind = ErrEnd
	case depth >= MaxDepth && (src[off] == '{' || src[off] == '['):
		out.Kind = ErrDepth
	case off > 0 && Valid(src[:off]):
		out.Kind = ErrTrailing
	default:
		out.Char, _ = utf8.DecodeRune(src[off:])
	}
	return out
}
