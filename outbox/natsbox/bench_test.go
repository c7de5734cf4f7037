package natsbox_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/outboxtest"
)

// BenchmarkAppend is outbox's BenchmarkAppend on an embedded hub over
// loopback: one comment per Apply, each one atomic batch fsynced before
// its acknowledgement.
func BenchmarkAppend(b *testing.B) {
	open := newRoot(b, startHub(b))
	s := open(b, outboxtest.Handle{})
	ctx := context.Background()
	id := outboxtest.MustApply(b, s, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	c := outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "a comment of ordinary length for the benchmark"}}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Apply(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkTriggeredWithCursor is a Lead's answer: a comment under a
// Trigger with the cursor moved, the three-message batch.
func BenchmarkTriggeredWithCursor(b *testing.B) {
	open := newRoot(b, startHub(b))
	s := open(b, outboxtest.Handle{})
	ctx := context.Background()
	id := outboxtest.MustApply(b, s, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	k := 0
	b.ResetTimer()
	for b.Loop() {
		k++
		if _, err := s.Apply(ctx, outbox.Change{Actor: "lead:a", Reader: "lead:a", UpTo: int64(k), Trigger: fmt.Sprint("T-", k),
			Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "ack"}}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenCatchUp measures a new process reading an outbox of
// 10,000 events from the hub (direct batch gets).
func BenchmarkOpenCatchUp(b *testing.B) {
	h := startHub(b)
	open := newRoot(b, h)
	s := open(b, outboxtest.Handle{})
	ctx := context.Background()
	id := outboxtest.MustApply(b, s, outbox.Change{Actor: "a", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	ops := make([]outbox.Op, 100)
	for i := range ops {
		ops[i] = outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "a comment of ordinary length for the benchmark"}
	}
	for range 100 {
		outboxtest.MustApply(b, s, outbox.Change{Actor: "a", Ops: ops})
	}
	b.ResetTimer()
	for b.Loop() {
		o := open(b, outboxtest.Handle{})
		if n, err := o.Head(ctx); err != nil || n < 10000 {
			b.Fatalf("head %d %v", n, err)
		}
		o.Close()
	}
}
