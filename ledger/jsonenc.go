package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// marshalValue encodes v as compact JSON without HTML escaping, the way
// Python's json.dumps leaves '<', '>' and '&' alone.
//
// Plain strings, ints and bools, most of an event's payload, are written
// directly: an encoder and its buffer for each of them was most of what
// building an event cost.
func marshalValue(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case string:
		if plainASCII(v) {
			return append(append(append(make(json.RawMessage, 0, len(v)+2), '"'), v...), '"'), nil
		}
	case int:
		return strconv.AppendInt(nil, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(nil, v), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// ensureASCII rewrites every non-ASCII character of a JSON text as a
// lowercase \uXXXX escape (surrogate pairs above U+FFFF), which is what
// Python's ensure_ascii=True produces. Non-ASCII bytes only ever occur
// inside JSON strings, so a byte-level pass is safe.
func ensureASCII(src []byte) []byte {
	ascii := true
	for _, b := range src {
		if b >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return src
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(src)+len(src)/4)
	u := func(r rune) {
		out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	for i := 0; i < len(src); {
		if src[i] < utf8.RuneSelf {
			out = append(out, src[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		i += size
		if r > 0xFFFF {
			r -= 0x10000
			u(0xD800 + (r>>10)&0x3FF)
			u(0xDC00 + r&0x3FF)
			continue
		}
		u(r)
	}
	return out
}

// MarshalDocument encodes v as Python's json.dumps(v, indent=2) + "\n":
// the form of every *.json file in state/.
//
// A document type's own MarshalJSON is called directly, and its output
// goes through one pass that indents and validates it (jsontext, whose
// formatter keeps strings and numbers as written): encoding/json would
// first compact the output in a pass of its own, and then json.Indent
// would scan it again, slowly, byte by byte.
func MarshalDocument(v any) ([]byte, error) {
	var (
		compact []byte
		err     error
	)
	if m, ok := v.(json.Marshaler); ok {
		compact, err = m.MarshalJSON()
	} else {
		compact, err = marshalValue(v)
	}
	if err != nil {
		return nil, err
	}
	doc := jsontext.Value(compact)
	if err := doc.Indent(jsontext.WithIndent("  "), jsontext.SpaceAfterColon(true)); err != nil {
		return nil, err
	}
	return ensureASCII(append(doc, '\n')), nil
}

// MarshalLine encodes v as Python's json.dumps(v, separators=(",", ":"))
// + "\n": one record of a JSONL file.
func MarshalLine(v any) ([]byte, error) {
	// The encoder already compacts (and validates) what MarshalJSON
	// methods return, so no second pass is needed.
	raw, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	return ensureASCII(append(raw, '\n')), nil
}

// MarshalCanonical encodes v as Python's json.dumps(v, sort_keys=True,
// ensure_ascii=True, separators=(",", ":")), the input of the handoff
// package hash. Numbers keep their textual form.
func MarshalCanonical(v any) ([]byte, error) {
	raw, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	sorted, err := marshalValue(generic) // maps encode with sorted keys
	if err != nil {
		return nil, err
	}
	return ensureASCII(sorted), nil
}

// Field is one member of a JSON object, kept with its raw value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object that keeps its members in order: event payloads,
// and the fields a reader did not recognise. The zero value is an empty
// object.
type Object []Field

// ObjectOf builds an Object from alternating keys and values. Values must
// be JSON-encodable (strings, numbers, bools, slices, maps, Objects); one
// that is not is recorded as a string describing the failure, so that a
// diagnostic payload never stops a ledger write.
func ObjectOf(kv ...any) Object {
	o := make(Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		key, _ := kv[i].(string)
		o = o.With(key, kv[i+1])
	}
	return o
}

// With returns o with key set to v, replacing an existing member in place
// or appending a new one.
func (o Object) With(key string, v any) Object {
	raw, err := marshalValue(v)
	if err != nil {
		raw, _ = marshalValue(fmt.Sprintf("unencodable %T: %v", v, err))
	}
	for i := range o {
		if o[i].Key == key {
			o[i].Value = raw
			return o
		}
	}
	return append(o, Field{Key: key, Value: raw})
}

// Get returns the raw value of key.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// String returns the value of key if it is a JSON string, else "".
func (o Object) String(key string) string {
	raw, ok := o.Get(key)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Keys returns the member names in order.
func (o Object) Keys() []string {
	keys := make([]string, len(o))
	for i, f := range o {
		keys[i] = f.Key
	}
	return keys
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	for _, f := range o {
		w.raw(f.Key, f.Value)
	}
	return w.bytes()
}

// UnmarshalJSON reads a JSON object, keeping member order.
func (o *Object) UnmarshalJSON(data []byte) error {
	fields, err := decodeObject(data)
	if err != nil {
		return err
	}
	*o = fields
	return nil
}

// SortedKeys returns the member names sorted, for deterministic output of
// maps that came from Go code.
func (o Object) SortedKeys() []string {
	keys := o.Keys()
	sort.Strings(keys)
	return keys
}

// errNotObject is returned when a document's top level is not an object.
var errNotObject = fmt.Errorf("expected a JSON object")

// decodeObject splits a JSON object into its members, in order, with their
// raw values. Duplicate keys keep the last value at the first position, as
// Python does; invalid UTF-8 is read as encoding/json reads it. jsontext
// validates as it reads, faster than json.Valid alone on the event lines
// of every reader. The values are slices of a private copy of data, so
// they stay valid whatever the caller does with its buffer.
func decodeObject(data []byte) (Object, error) {
	return readObject(bytes.Clone(data))
}

// splitObject is decodeObject for a value of a document already read:
// the members' values alias data.
func splitObject(data []byte) (Object, error) {
	return readObject(data)
}

// objectReader is a reusable jsontext decoder over a byte slice.
type objectReader struct {
	r   bytes.Reader
	dec *jsontext.Decoder
}

var objectReaders = sync.Pool{New: func() any {
	o := &objectReader{}
	o.dec = jsontext.NewDecoder(&o.r)
	return o
}}

// lenient are the reading options of encoding/json and Python's json:
// duplicate names and invalid UTF-8 are accepted.
var lenient = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func readObject(data []byte) (Object, error) {
	o := objectReaders.Get().(*objectReader)
	defer objectReaders.Put(o)
	defer o.r.Reset(nil) // the pool must not keep data alive
	o.r.Reset(data)
	o.dec.Reset(&o.r, lenient...)
	fields, err := o.members(data)
	if err != nil {
		if errors.Is(err, errNotObject) && !jsontext.Value(data).IsValid(lenient...) {
			err = errors.New("not valid JSON")
		}
		if !errors.Is(err, errNotObject) {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		return nil, err
	}
	return fields, nil
}

// members reads the one object of data.
func (o *objectReader) members(data []byte) (Object, error) {
	dec := o.dec
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errNotObject
	}
	var fields Object
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		key := name.String()
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		// ReadValue's bytes are the decoder's; the same bytes of data
		// end where the decoder stands.
		end := int(dec.InputOffset())
		value := json.RawMessage(data[end-len(raw) : end : end])
		replaced := false
		for k := range fields {
			if fields[k].Key == key {
				fields[k].Value, replaced = value, true
				break
			}
		}
		if !replaced {
			fields = append(fields, Field{Key: key, Value: value})
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("data after the object")
		}
		return nil, err
	}
	return fields, nil
}

// objectWriter builds a compact JSON object member by member, in the order
// the members are written.
type objectWriter struct {
	buf bytes.Buffer
	err error
	n   int
}

// marshalObject returns the JSON object whose members members writes.
func marshalObject(members func(*objectWriter)) ([]byte, error) {
	w := newObjectWriter()
	members(w)
	return w.bytes()
}

func newObjectWriter() *objectWriter {
	w := &objectWriter{}
	w.buf.WriteByte('{')
	return w
}

func (w *objectWriter) key(k string) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.string(k)
	w.buf.WriteByte(':')
}

// string writes s as a JSON string. Plain printable ASCII, by far the
// common case in a ledger, is written directly; anything else goes
// through encoding/json so that escaping stays exactly the same.
func (w *objectWriter) string(s string) {
	if !plainASCII(s) {
		raw, _ := marshalValue(s) // a Go string always encodes
		w.buf.Write(raw)
		return
	}
	w.buf.WriteByte('"')
	w.buf.WriteString(s)
	w.buf.WriteByte('"')
}

// str, int and bool write key with a value of their type; unlike value
// they take it without boxing it in an interface, which would allocate
// once a member.
func (w *objectWriter) str(k, v string) {
	w.key(k)
	w.string(v)
}

func (w *objectWriter) int(k string, v int) {
	w.key(k)
	w.buf.Write(strconv.AppendInt(w.buf.AvailableBuffer(), int64(v), 10))
}

func (w *objectWriter) bool(k string, v bool) {
	w.key(k)
	w.buf.Write(strconv.AppendBool(w.buf.AvailableBuffer(), v))
}

// plainASCII reports whether s is printable ASCII without a quote or a
// backslash: a JSON string that is s between quotes, as encoding/json
// (and Python's json.dumps) writes it.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// value writes key with v encoded as JSON.
func (w *objectWriter) value(k string, v any) {
	switch v := v.(type) {
	case string:
		w.str(k, v)
		return
	case int:
		w.int(k, v)
		return
	case bool:
		w.bool(k, v)
		return
	}
	raw, err := marshalValue(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("encode %s: %w", k, err)
	}
	w.raw(k, raw)
}

// raw writes key with an already encoded value.
func (w *objectWriter) raw(k string, v json.RawMessage) {
	w.key(k)
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	w.buf.Write(v)
}

// nullable writes "" as null, the contracts' form for absent ids.
func (w *objectWriter) nullable(k, v string) {
	if v == "" {
		w.raw(k, json.RawMessage("null"))
		return
	}
	w.str(k, v)
}

// strings writes a string list, nil as [].
func (w *objectWriter) strings(k string, v []string) {
	w.key(k)
	w.buf.WriteByte('[')
	for i, s := range v {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.string(s)
	}
	w.buf.WriteByte(']')
}

// list writes key with items as a JSON array of objects, nil as [],
// each object's members written by members straight into w. Going
// through each item's MarshalJSON and encoding/json instead would give
// every item a buffer of its own and scan every byte once more to
// compact it, which made the register of leases, rewritten at every
// step's start, cost more to encode than to write.
func list[T any](w *objectWriter, k string, items []T, members func(*T, *objectWriter)) {
	w.key(k)
	w.buf.WriteByte('[')
	outer := w.n
	for i := range items {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.buf.WriteByte('{')
		w.n = 0
		members(&items[i], w)
		w.buf.WriteByte('}')
	}
	w.n = outer
	w.buf.WriteByte(']')
}

func (w *objectWriter) extra(o Object) {
	for _, f := range o {
		w.raw(f.Key, f.Value)
	}
}

func (w *objectWriter) bytes() ([]byte, error) {
	w.buf.WriteByte('}')
	return w.buf.Bytes(), w.err
}
