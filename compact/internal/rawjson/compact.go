package rawjson

import "fmt"

// MaxDepth is how deeply arrays and objects may nest. Python's json module
// gives up at about the same depth, and the limit keeps every recursive
// walker of this package on a bounded stack.
const MaxDepth = 1000

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

// SyntaxError reports invalid JSON and where it starts.
type SyntaxError struct {
	Kind   ErrorKind
	Offset int  // byte offset of the problem in the input
	Char   byte // the offending byte, for ErrChar
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

// Compact validates src, which must hold exactly one JSON value with
// optional surrounding whitespace, and appends it to dst without
// insignificant whitespace. Strings are copied as they are written, escapes
// included. An invalid src is a *SyntaxError and leaves dst as it was.
func Compact(dst, src []byte) ([]byte, error) {
	p := parser{src: src, dst: dst}
	p.ws()
	if err := p.value(0); err != nil {
		return dst, err
	}
	p.ws()
	if p.i < len(src) {
		return dst, &SyntaxError{Kind: ErrTrailing, Offset: p.i}
	}
	return p.dst, nil
}

// parser is a recursive-descent validator that copies what it accepts.
type parser struct {
	src []byte
	i   int
	dst []byte
}

func (p *parser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// fail reports the byte at p.i, or the end of input.
func (p *parser) fail() error {
	if p.i >= len(p.src) {
		return &SyntaxError{Kind: ErrEnd, Offset: len(p.src)}
	}
	return &SyntaxError{Kind: ErrChar, Offset: p.i, Char: p.src[p.i]}
}

func (p *parser) value(depth int) error {
	if p.i >= len(p.src) {
		return p.fail()
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || isDigit(c):
		return p.number()
	default:
		return p.fail()
	}
}

func (p *parser) object(depth int) error {
	if depth > MaxDepth {
		return &SyntaxError{Kind: ErrDepth, Offset: p.i}
	}
	p.dst = append(p.dst, '{')
	p.i++
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		p.dst = append(p.dst, '}')
		return nil
	}
	for {
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return p.fail()
		}
		if err := p.str(); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return p.fail()
		}
		p.i++
		p.dst = append(p.dst, ':')
		p.ws()
		if err := p.value(depth); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.src) {
			return p.fail()
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			p.dst = append(p.dst, ',')
		case '}':
			p.i++
			p.dst = append(p.dst, '}')
			return nil
		default:
			return p.fail()
		}
	}
}

func (p *parser) array(depth int) error {
	if depth > MaxDepth {
		return &SyntaxError{Kind: ErrDepth, Offset: p.i}
	}
	p.dst = append(p.dst, '[')
	p.i++
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		p.dst = append(p.dst, ']')
		return nil
	}
	for {
		p.ws()
		if err := p.value(depth); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.src) {
			return p.fail()
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			p.dst = append(p.dst, ',')
		case ']':
			p.i++
			p.dst = append(p.dst, ']')
			return nil
		default:
			return p.fail()
		}
	}
}

// str accepts a string. Invalid UTF-8 is accepted (and read as U+FFFD
// later), as encoding/json does; control characters and bad escapes are not.
func (p *parser) str() error {
	src := p.src
	start := p.i
	i := p.i + 1
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			i++
			p.dst = append(p.dst, src[start:i]...)
			p.i = i
			return nil
		case c == '\\':
			n := escapeLen(src[i:])
			if n == 0 {
				p.i = i + 1
				return p.fail()
			}
			i += n
		case c < 0x20:
			p.i = i
			return p.fail()
		default:
			i++
		}
	}
	p.i = len(src)
	return p.fail()
}

// escapeLen returns the length of the escape sequence at the start of s,
// or 0 if it is not a valid JSON escape.
func escapeLen(s []byte) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 {
			return 0
		}
		for _, h := range s[2:6] {
			if !isHex(h) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func (p *parser) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.src) || p.src[p.i] != word[k] {
			return p.fail()
		}
		p.i++
	}
	p.dst = append(p.dst, word...)
	return nil
}

// number accepts -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *parser) number() error {
	src := p.src
	start := p.i
	i := p.i
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && isDigit(src[i]):
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	default:
		p.i = i
		return p.fail()
	}
	if i < len(src) && src[i] == '.' {
		i++
		if i >= len(src) || !isDigit(src[i]) {
			p.i = i
			return p.fail()
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			p.i = i
			return p.fail()
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	p.dst = append(p.dst, src[start:i]...)
	p.i = i
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
