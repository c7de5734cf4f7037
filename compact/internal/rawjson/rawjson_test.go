package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func compact(t testing.TB, s string) []byte {
	t.Helper()
	out, err := Compact(nil, []byte(s))
	if err != nil {
		t.Fatalf("Compact(%q): %v", s, err)
	}
	return out
}

func TestCompactStripsWhitespaceOnly(t *testing.T) {
	t.Parallel()
	in := " {\n\t\"a\" : [ 1 , -2.5e+3 , true , null , \"x y\\n\" ] ,\r\n \"b\" : { } , \"c\" : [ ] } "
	if got, want := string(compact(t, in)), `{"a":[1,-2.5e+3,true,null,"x y\n"],"b":{},"c":[]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCompactAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`, `[]`, `0`, `-0`, `-0.0e-0`, `1E+2`, `"\u00e9\ud83d\ude80"`, `"\ud800"`, "\"\xff\"", `"\/"`,
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `"\u12"`, `"\a"`, "\"\x01\"", `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `nul`, `[1 2]`,
		`{"a":1}}`, `"`, `tru`, `[`, ``, ` `,
	} {
		_, err := Compact(nil, []byte(in))
		if valid := json.Valid([]byte(in)); (err == nil) != valid {
			t.Errorf("%q: Compact error %v, json.Valid %v", in, err, valid)
		}
	}
}

func TestWalkers(t *testing.T) {
	t.Parallel()
	obj := compact(t, `{"a":"x\"}","b\\":[1,{"c":2}],"a":3}`)
	ms := Members(obj, nil)
	if len(ms) != 3 || string(ms[0].Value) != `"x\"}"` || string(ms[1].Key) != `"b\\"` || string(ms[1].Value) != `[1,{"c":2}]` {
		t.Fatalf("Members: %q", ms)
	}
	if !HasDuplicateKeys(ms) {
		t.Error("duplicate keys not found")
	}
	u := Unique(ms)
	if len(u) != 2 || string(u[0].Value) != "3" {
		t.Errorf("Unique: got %q, want a = 3 first", u)
	}
	if !KeyEqual([]byte(`"a"`), []byte(`"\u0061"`)) || KeyEqual([]byte(`"a"`), []byte(`"b"`)) || !KeyIs([]byte(`"\u0061"`), "a") {
		t.Error("key comparison")
	}
	if got := Elements(compact(t, `[1,"a,b",[2,3],{}]`), nil); len(got) != 4 || string(got[2]) != "[2,3]" {
		t.Errorf("Elements: %q", got)
	}
	var many []string
	for i := range 50 {
		many = append(many, `"k`+strings.Repeat("x", i%40)+`":1`)
	}
	big := compact(t, "{"+strings.Join(many, ",")+"}")
	if ms := Members(big, nil); !HasDuplicateKeys(ms) || len(Unique(ms)) != 40 {
		t.Errorf("large object: %d unique", len(Unique(Members(big, nil))))
	}
}

// TestAppendQuoteLikePython compares with json.dumps(s) (ensure_ascii).
func TestAppendQuoteLikePython(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		"\"\\/\b\f\n\r\t": `"\"\\/\b\f\n\r\t"`,
		"\x00\x1f\x7f":    `"\u0000\u001f\u007f"`,
		"é中🚀":             `"\u00e9\u4e2d\ud83d\ude80"`,
		"<&>":             `"<&>"`,
		"bad\xffutf8":     `"bad\ufffdutf8"`,
	} {
		if got := string(AppendQuote(nil, []byte(in))); got != want {
			t.Errorf("AppendQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAppendUnquoteLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude80"`, `"\ud800x"`, `"\udc00"`, "\"\xffok\"", `"\ud83d\u0041"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if got := string(AppendUnquote(nil, []byte(in))); got != want {
			t.Errorf("AppendUnquote(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestTrim(t *testing.T) {
	t.Parallel()
	var buf []byte
	for in, want := range map[string]bool{`"x"`: true, `""`: false, `" x"`: false, `"x\n"`: false, `"\u3000x"`: false, "\"x\u00a0\"": false, `"\u001cx"`: false, `"é"`: true} {
		if got := Trimmed([]byte(in), &buf); got != want {
			t.Errorf("Trimmed(%s) = %v, want %v", in, got, want)
		}
	}
	if got := string(TrimSpace([]byte("\x1c\u3000 x y\t"))); got != "x y" {
		t.Errorf("TrimSpace: %q", got)
	}
}

func TestHasherMeaning(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{`{"a":1,"b":"x"}`, `{"b":"\u0078","a":1}`},
		{`{"a":{"c":[1,{"d":2,"e":3}]}}`, `{"a":{"c":[1,{"e":3,"d":2}]}}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{"\"\xff\"", "\"\xfe\""},
		{`[{"k":1,"k":2}]`, `[{"k":2}]`},
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":1.0}`}, {`{"a":"1"}`, `{"a":1}`}, {`[1,2]`, `[2,1]`}, {`{"a":null}`, `{}`},
		{`{"a":"x","b":"y"}`, `{"a":"y","b":"x"}`}, {`{"a\":\"b":"c"}`, `{"a":"b\":\"c"}`}, {`[[]]`, `[]`}, {`true`, `false`},
	}
	var h Hasher
	for _, p := range same {
		a, b := compact(t, p[0]), compact(t, p[1])
		if !h.Equal(a, b) || h.Value(a) != h.Value(b) {
			t.Errorf("%s and %s: Equal %v, hashes %x %x", p[0], p[1], h.Equal(a, b), h.Value(a), h.Value(b))
		}
	}
	for _, p := range differ {
		if a, b := compact(t, p[0]), compact(t, p[1]); h.Equal(a, b) {
			t.Errorf("%s and %s are Equal", p[0], p[1])
		}
	}
	obj := compact(t, `{"b":"x","a":[1]}`)
	if h.Object(Members(obj, nil)) != h.Value(obj) {
		t.Error("Object and Value disagree")
	}
}

// TestAppendIndentKeepsMeaning checks the indented form against
// encoding/json's own reading and json.Indent's layout.
func TestAppendIndentKeepsMeaning(t *testing.T) {
	t.Parallel()
	in := compact(t, `{"a":[1,{"b":[],"c":{}},"\u00e9"],"d":{"e":null,"e":true},"f":[[]]}`)
	var w Writer
	got := w.AppendIndent(nil, in, 0)
	want := "{\n  \"a\": [\n    1,\n    {\n      \"b\": [],\n      \"c\": {}\n    },\n    \"\\u00e9\"\n  ],\n  \"d\": {\n    \"e\": true\n  },\n  \"f\": [\n    []\n  ]\n}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(in, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Error("indenting changed the meaning")
	}
}

// FuzzCompact checks the validator against encoding/json and the writers
// and hasher against the meaning of what they read.
func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":null}]}`, `"\ud83d\ude80"`, `[1,2`, `{"a":1,"a":2}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Compact(nil, data)
		if (err == nil) != json.Valid(data) {
			var se *SyntaxError
			if !(err != nil && errors.As(err, &se) && se.Kind == ErrDepth) {
				t.Fatalf("Compact error %v, json.Valid %v", err, json.Valid(data))
			}
		}
		if err != nil {
			return
		}
		var w Writer
		ind := w.AppendIndent(nil, out, 0)
		want, err1 := decodeNumbers(data)
		got, err2 := decodeNumbers(out)
		indented, err3 := decodeNumbers(ind)
		if err1 != nil || err2 != nil || err3 != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(indented, want) {
			t.Fatalf("meaning changed:\n%s\n%s", out, ind)
		}
		var h Hasher
		again, _ := Compact(nil, ind)
		if !h.Equal(out, again) || h.Value(out) != h.Value(again) || !bytes.Equal(w.AppendIndent(nil, again, 0), ind) {
			t.Fatalf("indented form is not the same value")
		}
	})
}

// decodeNumbers reads JSON with numbers as their text, which is how this
// package treats them (1e1000 is valid JSON but no float64).
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
