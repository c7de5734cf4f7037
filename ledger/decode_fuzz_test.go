package ledger

import (
	"bytes"
	"encoding/json"
	"testing"
)

// referenceDecode is the straightforward json.Decoder version of
// decodeObject: the jsontext reader must agree with it on every input.
func referenceDecode(data []byte) (Object, bool) {
	// The token stream alone accepts some trailing garbage ("{}}0"):
	// validity is json.Valid's call.
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, false
	}
	var fields Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		replaced := false
		for i := range fields {
			if fields[i].Key == key {
				fields[i].Value, replaced = raw, true
			}
		}
		if !replaced {
			fields = append(fields, Field{Key: key, Value: raw})
		}
	}
	if _, err := dec.Token(); err != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return fields, true
}

func FuzzDecodeObject(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "a":"x\"y" } `, `{"k\u00e9y":"v","":null}`,
		`{"s":"\\","n":-1.5e3,"t":true,"f":false}`, `[1]`, `{"a":1}x`, `{"a":}`, `"str"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeObject(data)
		want, ok := referenceDecode(data)
		if (err == nil) != ok {
			t.Fatalf("decodeObject err=%v, reference ok=%v, input %q", err, ok, data)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d members, reference %d, input %q", len(got), len(want), data)
		}
		for i := range got {
			if got[i].Key != want[i].Key || !bytes.Equal(got[i].Value, want[i].Value) {
				t.Fatalf("member %d: %q=%s, reference %q=%s", i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
			}
		}
	})
}
