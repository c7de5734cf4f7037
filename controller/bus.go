package controller

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/daokit/daokit/workflow"
)

// bus is the controller's event stream: every event of every run, as the
// ledger wrote it, handed to whoever subscribed. It is the event bus of
// seed 001's hybrid pattern: [[workflow.callbacks]] with events = "all"
// listen to it through an adapter (a workflow.LineSink), and a remote
// observer (the hub's) subscribes the same way, with a sink on its
// connection. Publishing never waits: a subscriber's Offer queues or
// drops.
type bus struct {
	mu   sync.Mutex // serialises Subscribe and its cancel
	subs atomic.Pointer[[]workflow.Liner]
}

// busPrefix and busSuffix wrap an event line for subscribers:
// {"callback":"OnEvent","event":<the event as events.jsonl has it>}.
var (
	busPrefix = []byte(`{"callback":"` + workflow.LineEvent + `","event":`)
	busSuffix = []byte("}\n")
)

// Subscribe adds l to the stream from the next event on; the function it
// returns removes it.
func (b *bus) Subscribe(l workflow.Liner) (cancel func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.load()
	next := append(old[:len(old):len(old)], l)
	b.subs.Store(&next)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		cur := b.load()
		kept := make([]workflow.Liner, 0, len(cur))
		for _, s := range cur {
			if s != l {
				kept = append(kept, s)
			}
		}
		b.subs.Store(&kept)
	}
}

func (b *bus) load() []workflow.Liner {
	if p := b.subs.Load(); p != nil {
		return *p
	}
	return nil
}

// publish hands lines (events.jsonl lines, as written) to every
// subscriber. Without subscribers it costs one atomic load; with them,
// one wrapped copy of each line, shared by all.
func (b *bus) publish(lines []byte) {
	subs := b.load()
	if len(subs) == 0 {
		return
	}
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n')
		if i < 0 {
			i = len(lines)
		}
		ev := lines[:i]
		lines = lines[min(i+1, len(lines)):]
		if len(ev) == 0 {
			continue
		}
		out := make([]byte, 0, len(busPrefix)+len(ev)+len(busSuffix))
		out = append(append(append(out, busPrefix...), ev...), busSuffix...)
		for _, s := range subs {
			s.Offer(out)
		}
	}
}
