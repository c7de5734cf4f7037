package leader

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Document queues data, the new content of state/<name>, for the
// document bucket (ledger.Replica). It never blocks: only the newest
// version of each document is published, by the leader's own goroutine.
func (l *Leader) Document(name string, data []byte) {
	if l.isDeposed() {
		return
	}
	l.docMu.Lock()
	l.docNext[name] = data
	l.docMu.Unlock()
	select {
	case l.docKick <- struct{}{}:
	default:
	}
}

// publishDocuments publishes queued documents until the leader stops.
func (l *Leader) publishDocuments() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case <-l.deposed:
			return
		case <-l.docKick:
		}
		l.flushDocuments()
	}
}

// flushDocuments publishes every queued document, each with the revision
// this leader last wrote or read (a successor's write refuses it and
// deposes this leader). One the hub did not take (an outage) stays
// queued for the next kick unless a newer version replaced it.
func (l *Leader) flushDocuments() {
	l.docMu.Lock()
	next := l.docNext
	l.docNext = map[string][]byte{}
	l.docMu.Unlock()
	for name, data := range next {
		if err := l.publishDocument(name, data); err != nil {
			if errors.Is(err, ErrDeposed) {
				return
			}
			l.log.Debug("document not published; kept for the next try", "name", name, "err", err)
			l.docMu.Lock()
			if _, newer := l.docNext[name]; !newer {
				l.docNext[name] = data
			}
			l.docMu.Unlock()
		}
	}
}

func (l *Leader) publishDocument(name string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.isDeposed() {
		return ErrDeposed
	}
	if time.Now().UnixNano() > l.deadline.Load() {
		return errLapsed
	}
	rev, known := l.docRev[name]
	var err error
	var nrev uint64
	if known {
		nrev, err = l.docs.Update(ctx, name, data, rev)
	} else {
		nrev, err = l.docs.Create(ctx, name, data)
	}
	if err == nil {
		l.docRev[name] = nrev
		return nil
	}
	if !wrongSequence(err) && !errors.Is(err, jetstream.ErrKeyExists) {
		return err
	}
	// Another revision than ours: a successor's write, or our own that
	// landed though its answer was lost (an outage). The lease says
	// which; while we hold it, nobody else writes.
	taken, lerr := l.leaseTaken(ctx)
	switch {
	case lerr != nil:
		return lerr
	case taken:
		l.depose("document " + name + " was written by another leader")
		return ErrDeposed
	}
	if e, gerr := l.docs.Get(ctx, name); gerr == nil {
		l.docRev[name] = e.Revision()
	} else if errors.Is(gerr, jetstream.ErrKeyNotFound) {
		delete(l.docRev, name)
	}
	return err // kept, and published again with the revision read
}
