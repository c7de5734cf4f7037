package lead

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// OnSettled comes once, after the Lead's first pass (its answers to what
// the outbox held when it started are committed), and not again for the
// events that follow: the daokit lead command gives back its start-up
// memory then.
func TestOnSettledOnceCaughtUp(t *testing.T) {
	p := newProject(t, twoRoles, 50*time.Millisecond)
	id := p.file("talk", "", "to:backend")
	p.do("admin", outbox.Op{Kind: outbox.OpClose, Issue: id})
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "before the start\n\nTrigger: S-1"})
	var calls atomic.Int32
	answered := make(chan bool, 1)
	l := p.lead("backend", 1, func(o *Options) {
		o.OnSettled = func() {
			answered <- len(fieldsOf(p.comments(id), roster.Actor("backend"))) == 1
			calls.Add(1)
		}
	})
	runLead(t, l)
	select {
	case ok := <-answered:
		if !ok {
			t.Fatal("settled before the Lead answered what the outbox held when it started")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("OnSettled never called")
	}
	p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: id, Body: "after\n\nTrigger: S-2"})
	p.waitFor("the second answer", 30*time.Second, func() bool {
		return len(fieldsOf(p.comments(id), roster.Actor("backend"))) == 2
	})
	// More passes later (the wake interval is 50 ms), still once.
	head, _ := p.ob.Head(context.Background())
	p.waitFor("the Lead past the head", 30*time.Second, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.cursor >= head
	})
	if n := calls.Load(); n != 1 {
		t.Fatalf("OnSettled called %d times", n)
	}
}
