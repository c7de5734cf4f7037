package compact

import (
	"bytes"
	"testing"

	"github.com/daokit/daokit/compact/internal/ctxgen"
)

// The budget: 100,000 entries compact in under 100 ms and 50 MB
// allocated; compacting the result again takes under 5 ms and changes
// nothing.
const benchEntries = 100_000

func bigContext(b *testing.B) (*Context, []byte) {
	b.Helper()
	data := ctxgen.Big(benchEntries, 1)
	c, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	if c.Len() != benchEntries {
		b.Fatalf("generated %d entries, want %d", c.Len(), benchEntries)
	}
	return c, data
}

// BenchmarkCompact100k measures Compact alone on a parsed context.
func BenchmarkCompact100k(b *testing.B) {
	c, _ := bigContext(b)
	b.ReportAllocs()
	var rep Report
	for b.Loop() {
		_, rep = Compact(c, Facts{})
	}
	b.ReportMetric(float64(rep.EntriesAfter), "kept")
}

// BenchmarkCompactAgain100k measures compacting the result of
// BenchmarkCompact100k, which must change nothing.
func BenchmarkCompactAgain100k(b *testing.B) {
	c, _ := bigContext(b)
	once, _ := Compact(c, Facts{})
	want := once.Encode()
	b.ReportAllocs()
	var again *Context
	var rep Report
	for b.Loop() {
		again, rep = Compact(once, Facts{})
	}
	if rep.Changed() || !bytes.Equal(again.Encode(), want) {
		b.Fatal("compacting a compacted context changed it")
	}
}

// BenchmarkCompactAgainUnsealed100k measures compacting the result again
// entry by entry, with the analyses the first pass remembered: the path
// of a compacted context that a later Append reopened.
func BenchmarkCompactAgainUnsealed100k(b *testing.B) {
	c, _ := bigContext(b)
	once, _ := Compact(c, Facts{})
	want := once.Encode()
	open := unseal(once)
	b.ReportAllocs()
	var again *Context
	for b.Loop() {
		again, _ = Compact(open, Facts{})
	}
	if !bytes.Equal(again.Encode(), want) {
		b.Fatal("compacting a compacted context changed it")
	}
}

// BenchmarkCompactJSON100k measures what `daokit compact` does with the
// bytes: Parse, Compact, Encode.
func BenchmarkCompactJSON100k(b *testing.B) {
	_, data := bigContext(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := Compact(c, Facts{})
		_ = out.Encode()
	}
}

// BenchmarkCompactAgainJSON100k measures compacting the encoded result
// again from its bytes, with nothing remembered from the first pass.
func BenchmarkCompactAgainJSON100k(b *testing.B) {
	c, _ := bigContext(b)
	once, _ := Compact(c, Facts{})
	data := once.Encode()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := Compact(c, Facts{})
		if !bytes.Equal(out.Encode(), data) {
			b.Fatal("compacting the encoded result changed it")
		}
	}
}
