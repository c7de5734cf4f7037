package rawjson

// Writer writes compact JSON values in Python's json.dumps forms. The zero
// value is ready to use; a Writer is not safe for concurrent use.
type Writer struct {
	scratch Scratch
	buf     []byte
}

// AppendString appends the JSON string s the way AppendQuote writes its
// text.
func (w *Writer) AppendString(dst, s []byte) []byte {
	if Canonical(s) {
		return append(dst, s...)
	}
	w.buf = AppendUnquote(w.buf[:0], s)
	return AppendQuote(dst, w.buf)
}

// AppendIndent appends v as json.dumps(v, indent=2) writes it when v
// stands at the given nesting depth: members and elements one per line,
// ", " never, ": " between key and value, empty containers as {} and [].
func (w *Writer) AppendIndent(dst, v []byte, depth int) []byte {
	if len(v) == 0 {
		return dst
	}
	switch v[0] {
	case '{':
		ms := w.scratch.Members(depth, v)
		if len(ms) == 0 {
			return append(dst, '{', '}')
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Newline(dst, depth+1)
			dst = w.AppendString(dst, m.Key)
			dst = append(dst, ':', ' ')
			dst = w.AppendIndent(dst, m.Value, depth+1)
		}
		return append(Newline(dst, depth), '}')
	case '[':
		if len(v) < 2 || v[1] == ']' {
			return append(dst, '[', ']')
		}
		dst = append(dst, '[')
		first := true
		for e := range ElementsSeq(v) {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = Newline(dst, depth+1)
			dst = w.AppendIndent(dst, e, depth+1)
		}
		return append(Newline(dst, depth), ']')
	case '"':
		return w.AppendString(dst, v)
	default:
		return append(dst, v...)
	}
}

// Newline appends a line break and the indentation of depth.
func Newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
