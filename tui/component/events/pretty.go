package events

import (
	"bytes"
	"encoding/json"
	"strings"
)

// pretty indents a JSON document for the detail view, keeping member
// order and showing non-ASCII text as characters: the Python DAOKit
// writes Chinese as \u escapes, which nobody can read. Invalid JSON is
// returned as it is.
func pretty(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	p := printer{b: &b, dec: dec}
	if err := p.value(0); err != nil {
		return string(raw)
	}
	return b.String()
}

type printer struct {
	b   *strings.Builder
	dec *json.Decoder
}

func (p *printer) indent(depth int) {
	p.b.WriteByte('\n')
	p.b.WriteString(strings.Repeat("  ", depth))
}

// value prints the next value of the stream at depth.
func (p *printer) value(depth int) error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		return p.container(t, depth)
	case string:
		p.b.WriteString(quote(t))
	case json.Number:
		p.b.WriteString(t.String())
	case bool:
		if t {
			p.b.WriteString("true")
		} else {
			p.b.WriteString("false")
		}
	case nil:
		p.b.WriteString("null")
	}
	return nil
}

// container prints an object or array whose opening delimiter was read.
func (p *printer) container(open json.Delim, depth int) error {
	closing := byte('}')
	if open == '[' {
		closing = ']'
	}
	p.b.WriteByte(byte(open))
	n := 0
	for p.dec.More() {
		if n > 0 {
			p.b.WriteByte(',')
		}
		p.indent(depth + 1)
		if open == '{' {
			tok, err := p.dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			p.b.WriteString(quote(key) + ": ")
		}
		if err := p.value(depth + 1); err != nil {
			return err
		}
		n++
	}
	if _, err := p.dec.Token(); err != nil {
		return err
	}
	if n > 0 {
		p.indent(depth)
	}
	p.b.WriteByte(closing)
	return nil
}

// quote encodes s as a JSON string without escaping non-ASCII or HTML
// characters.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}
