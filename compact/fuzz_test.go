package compact

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/daokit/daokit/compact/internal/ctxgen"
)

// FuzzCompact looks for input that makes Parse disagree with
// encoding/json, Encode change a context's meaning, or Compact panic,
// produce invalid JSON, or change its own output. The seed corpus is in
// testdata/fuzz/FuzzCompact; ledgerSeed picks the ledger facts.
func FuzzCompact(f *testing.F) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		f.Add(ctxgen.Random(r), seed)
	}
	f.Add([]byte(`{"api_error_dumps":["Traceback: E_X"]}`), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, ledgerSeed uint64) {
		known := factsOf(ctxgen.RandomLedger(rand.New(rand.NewPCG(ledgerSeed, 0))))
		c, err := Parse(data)
		var se *SyntaxError
		switch {
		case err != nil && json.Valid(data) && !errors.Is(err, ErrNotObject) && !(errors.As(err, &se) && se.Kind == SyntaxDepth):
			t.Fatalf("Parse rejected valid JSON: %v", err)
		case err != nil:
			return
		case !json.Valid(data):
			t.Fatalf("Parse accepted invalid JSON")
		}
		enc0 := c.Encode()
		var want, got any
		if decodeJSON(data, &want) != nil || decodeJSON(enc0, &got) != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Encode changed the meaning:\n%s", enc0)
		}
		if raw, _ := c.MarshalJSON(); len(raw) != c.Size() || !json.Valid(raw) {
			t.Fatalf("MarshalJSON gave %d bytes, Size %d: %s", len(raw), c.Size(), raw)
		}
		out, _ := Compact(c, known)
		enc := out.Encode()
		if !json.Valid(enc) {
			t.Fatalf("Compact produced invalid JSON:\n%s", enc)
		}
		if again, rep := Compact(unseal(out), known); rep.Changed() || !bytes.Equal(again.Encode(), enc) {
			t.Fatalf("second pass changed the context:\n%s\nthen\n%s", enc, again.Encode())
		}
		reparsed, err := Parse(enc)
		if err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		if again, rep := Compact(reparsed, known); rep.Changed() || !bytes.Equal(again.Encode(), enc) {
			t.Fatalf("second pass from the bytes changed the context:\n%s\nthen\n%s", enc, again.Encode())
		}
	})
}
