package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Problem codes of a ValidationError. They are stable: the CLI and the
// window translate them.
const (
	ProblemInvalidJSON    = "invalid_json"
	ProblemNotObject      = "not_object"
	ProblemType           = "type"
	ProblemRequired       = "required"
	ProblemConst          = "const"
	ProblemEnum           = "enum"
	ProblemEmpty          = "empty"
	ProblemMinimum        = "minimum"
	ProblemDateTime       = "datetime"
	ProblemUnknownField   = "unknown_field"
	ProblemNoProperties   = "no_properties"
	ProblemThresholdOrder = "threshold_order"
)

// ValidationError says which field of which file is wrong and why. Every
// parse and validation failure of this package is one (possibly several,
// joined with errors.Join); find the first with errors.As.
type ValidationError struct {
	File string // base name, e.g. "pipeline_state.json"; may be empty
	Path string // JSON path of the field, e.g. "$.steps[0].id"
	Code string // one of the Problem* codes
	// Want describes what was expected: the allowed values of an enum, the
	// const value, the JSON type, or the minimum.
	Want string
	// Err is the underlying decoder error for ProblemInvalidJSON.
	Err error
}

// Error implements error: "<file>: <path> <problem>".
func (e *ValidationError) Error() string {
	if e.File == "" {
		return e.describe()
	}
	return e.File + ": " + e.describe()
}

// describe is the message without the file name.
func (e *ValidationError) describe() string {
	var b strings.Builder
	b.WriteString(e.Path)
	b.WriteString(" ")
	switch e.Code {
	case ProblemInvalidJSON:
		b.WriteString("is not valid JSON")
		if e.Err != nil {
			b.WriteString(" (" + e.Err.Error() + ")")
		}
	case ProblemNotObject:
		b.WriteString("must be a JSON object")
	case ProblemType:
		b.WriteString("must be " + e.Want)
	case ProblemRequired:
		b.WriteString("is required")
	case ProblemConst:
		b.WriteString("must be " + e.Want)
	case ProblemEnum:
		b.WriteString("must be one of " + e.Want)
	case ProblemEmpty:
		b.WriteString("must be a non-empty string")
	case ProblemMinimum:
		b.WriteString("must be >= " + e.Want)
	case ProblemDateTime:
		b.WriteString("must be an RFC 3339 date-time")
	case ProblemUnknownField:
		b.WriteString("is not a field of the contract")
	case ProblemNoProperties:
		b.WriteString("must have at least one entry")
	case ProblemThresholdOrder:
		b.WriteString("must be >= " + e.Want)
	case ProblemHash:
		b.WriteString("does not match the package content")
	default:
		b.WriteString(e.Code)
	}
	return b.String()
}

// Unwrap returns the decoder error of ProblemInvalidJSON, else nil.
func (e *ValidationError) Unwrap() error { return e.Err }

// Problems returns every *ValidationError inside err, in order.
func Problems(err error) []*ValidationError {
	var out []*ValidationError
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if ve, ok := err.(*ValidationError); ok {
			out = append(out, ve)
			return
		}
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				walk(e)
			}
			return
		}
		walk(errors.Unwrap(err))
	}
	walk(err)
	return out
}

// withFile sets File on every ValidationError inside err.
func withFile(err error, file string) error {
	for _, ve := range Problems(err) {
		if ve.File == "" {
			ve.File = file
		}
	}
	return err
}

// dateTimePattern is the contract validator's date-time rule, compiled on
// first use: every daokit command links the ledger package, and start-up
// is most of a quick command's time.
var dateTimePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
})

// checker accumulates validation problems.
type checker struct{ errs []error }

func (c *checker) add(path, code, want string) {
	c.errs = append(c.errs, &ValidationError{Path: path, Code: code, Want: want})
}

func (c *checker) err() error { return errors.Join(c.errs...) }

func (c *checker) schemaVersion(path, v string) {
	if v != SchemaVersion {
		c.add(path, ProblemConst, fmt.Sprintf("%q", SchemaVersion))
	}
}

func (c *checker) nonEmpty(path, v string) {
	if v == "" {
		c.add(path, ProblemEmpty, "")
	}
}

func (c *checker) enum(path, v string, allowed []string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.add(path, ProblemEnum, strings.Join(allowed, ", "))
}

func (c *checker) dateTime(path, v string) {
	if !dateTimePattern().MatchString(v) {
		c.add(path, ProblemDateTime, "")
	}
}

// optionalDateTime checks a nullable date-time ("" is null).
func (c *checker) optionalDateTime(path, v string) {
	if v != "" {
		c.dateTime(path, v)
	}
}

func (c *checker) strictList(path string, items []string) {
	for i, s := range items {
		c.nonEmpty(fmt.Sprintf("%s[%d]", path, i), s)
	}
}

func (c *checker) noExtra(path string, extra Object) {
	for _, f := range extra {
		c.add(path+"."+f.Key, ProblemUnknownField, "")
	}
}

// fieldReader decodes the known members of an object into typed fields,
// collecting type problems with their paths; what it does not consume
// becomes Extra.
type fieldReader struct {
	path string
	obj  Object
	used map[string]bool
	errs []error
}

func newFieldReader(path string, data []byte) (*fieldReader, error) {
	obj, err := decodeObject(data)
	if err != nil {
		code := ProblemInvalidJSON
		if errors.Is(err, errNotObject) {
			code = ProblemNotObject
			err = nil
		}
		return nil, &ValidationError{Path: path, Code: code, Err: err}
	}
	return newFieldReaderFromObject(path, obj), nil
}

func newFieldReaderFromObject(path string, obj Object) *fieldReader {
	return &fieldReader{path: path, obj: obj, used: map[string]bool{}}
}

func (r *fieldReader) fail(key, want string) {
	r.errs = append(r.errs, &ValidationError{Path: r.path + "." + key, Code: ProblemType, Want: want})
}

func (r *fieldReader) take(key string) (json.RawMessage, bool) {
	raw, ok := r.obj.Get(key)
	if ok {
		r.used[key] = true
	}
	return raw, ok
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// str reads a string; null reads as "".
func (r *fieldReader) str(key string, dst *string) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	if s, ok := plainString(raw); ok {
		*dst = s
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		r.fail(key, "a string")
	}
}

// plainString reads a JSON string without escapes directly: most ids and
// timestamps, on the hot path of every reader. The value comes from a
// validated document, so a quoted run without a backslash is the string.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// optStr reads a string that may be absent; absent stays nil, null is "".
func (r *fieldReader) optStr(key string, dst **string) {
	raw, ok := r.take(key)
	if !ok {
		return
	}
	s := ""
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &s); err != nil {
			r.fail(key, "a string or null")
			return
		}
	}
	*dst = &s
}

func (r *fieldReader) strs(key string, dst *[]string) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		r.fail(key, "a list of strings")
	}
}

func (r *fieldReader) integer(key string, dst *int) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != float64(int(f)) || strings.ContainsAny(string(raw), ".eE") {
		r.fail(key, "an integer")
		return
	}
	*dst = int(f)
}

func (r *fieldReader) boolean(key string, dst *bool) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		r.fail(key, "a boolean")
	}
}

func (r *fieldReader) object(key string, dst *Object) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	obj, err := splitObject(raw)
	if err != nil {
		r.fail(key, "an object")
		return
	}
	*dst = obj
}

// nested runs decode on the member key as an object at path.key.
func (r *fieldReader) nested(key string, decode func(*fieldReader)) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	obj, err := splitObject(raw)
	if err != nil {
		r.fail(key, "an object")
		return
	}
	sub := newFieldReaderFromObject(r.path+"."+key, obj)
	decode(sub)
	r.errs = append(r.errs, sub.errs...)
}

// list runs decode on each element of the array member key.
func (r *fieldReader) list(key string, decode func(i int, sub *fieldReader)) {
	raw, ok := r.take(key)
	if !ok || isNull(raw) {
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		r.fail(key, "a list")
		return
	}
	for i, item := range items {
		path := fmt.Sprintf("%s.%s[%d]", r.path, key, i)
		obj, err := decodeObject(item)
		if err != nil {
			r.errs = append(r.errs, &ValidationError{Path: path, Code: ProblemType, Want: "an object"})
			continue
		}
		sub := newFieldReaderFromObject(path, obj)
		decode(i, sub)
		r.errs = append(r.errs, sub.errs...)
	}
}

// extra returns the members nobody read.
func (r *fieldReader) extra() Object {
	var out Object
	for _, f := range r.obj {
		if !r.used[f.Key] {
			out = append(out, f)
		}
	}
	return out
}

func (r *fieldReader) err() error { return errors.Join(r.errs...) }
