package controller

import (
	"github.com/daokit/daokit/ledger"
)

// journalBatch caps how many waiting appends share one write and fsync.
const journalBatch = 512

// journal appends events with group commit: appends that arrive while a
// write is in flight wait together and share the next write(2) and fsync.
// An acknowledgement then costs about one fsync however many runs are
// writing their own events at the same moment.
type journal struct {
	store *ledger.Store
	reqs  chan *appendReq
	done  chan struct{}
}

type appendReq struct {
	events []ledger.Event
	err    chan error
}

func newJournal(store *ledger.Store) *journal {
	j := &journal{store: store, reqs: make(chan *appendReq), done: make(chan struct{})}
	go j.loop()
	return j
}

// append makes events durable, in order, and returns once they are.
// Invalid events are refused on their own, without failing the others.
func (j *journal) append(events ...ledger.Event) error {
	for i := range events {
		if err := events[i].Validate(); err != nil {
			return err
		}
	}
	req := &appendReq{events: events, err: make(chan error, 1)}
	j.reqs <- req
	return <-req.err
}

func (j *journal) loop() {
	defer close(j.done)
	for req := range j.reqs {
		batch := []*appendReq{req}
	drain:
		for len(batch) < journalBatch {
			select {
			case more, ok := <-j.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			default:
				break drain
			}
		}
		var all []ledger.Event
		for _, r := range batch {
			all = append(all, r.events...)
		}
		err := j.store.AppendEvents(all)
		for _, r := range batch {
			r.err <- err
		}
	}
}

// close stops the journal once every append already sent is written.
func (j *journal) close() {
	close(j.reqs)
	<-j.done
}
