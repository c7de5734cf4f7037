package controller

import (
	"bytes"
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
//
// The subscribers are a published value: publish (the journal's goroutine,
// once per write) reads them with one atomic load and no lock, and
// Subscribe and its cancel, which are rare, replace the whole list with a
// changed copy by compare-and-swap, trying again if another change won.
// A list once stored is never changed, so a publish that loaded it reads
// a consistent one.
type bus struct {
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
	b.change(func(cur []workflow.Liner) []workflow.Liner { return append(cur[:len(cur):len(cur)], l) })
	return func() {
		b.change(func(cur []workflow.Liner) []workflow.Liner {
			kept := make([]workflow.Liner, 0, len(cur))
			for _, s := range cur {
				if s != l {
					kept = append(kept, s)
				}
			}
			return kept
		})
	}
}

// change stores edit's copy of the subscribers, unless another change
// came first: then edit runs again on that one. edit must not change
// the list it is given (a publish may be reading it).
func (b *bus) change(edit func([]workflow.Liner) []workflow.Liner) {
	for {
		old := b.subs.Load()
		var cur []workflow.Liner
		if old != nil {
			cur = *old
		}
		next := edit(cur)
		if b.subs.CompareAndSwap(old, &next) {
			return
		}
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
