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
//
// Every event written is folded into the instruction index, in order and
// before its append returns, so that an acknowledgement is in the index
// as soon as it is durable; every checkpointEvery events the index is
// checkpointed (see instrIndex).
type journal struct {
	store *ledger.Store
	index *instrIndex
	// onErr hears checkpoint failures: the events are safe, a later
	// checkpoint or the next start's replay makes up for it.
	onErr func(error)
	reqs  chan *appendReq
	done  chan struct{}
	// cpReq asks the checkpoint goroutine for a checkpoint; cpDone is
	// closed once it wrote the last one.
	cpReq  chan struct{}
	cpDone chan struct{}
}

type appendReq struct {
	events []ledger.Event
	err    chan error
}

func newJournal(store *ledger.Store, index *instrIndex, onErr func(error)) *journal {
	j := &journal{store: store, index: index, onErr: onErr, reqs: make(chan *appendReq), done: make(chan struct{}),
		cpReq: make(chan struct{}, 1), cpDone: make(chan struct{})}
	go j.loop()
	go j.checkpoints()
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
		if err == nil {
			j.index.foldBatch(all, j.store.EventsSize())
		}
		for _, r := range batch {
			r.err <- err
		}
		if err == nil && j.index.due() {
			select {
			case j.cpReq <- struct{}{}:
			default: // one is under way; the next batch asks again
			}
		}
	}
	close(j.cpReq)
}

// checkpoints writes the index's checkpoints on a goroutine of its own:
// they sync up to a few hundred small files, which acknowledgements must
// not wait for. The last one, after the journal closed, covers every
// event.
func (j *journal) checkpoints() {
	defer close(j.cpDone)
	for range j.cpReq {
		j.checkpoint()
	}
	j.checkpoint()
}

func (j *journal) checkpoint() {
	if err := j.index.checkpoint(); err != nil {
		j.onErr(err)
	}
}

// close stops the journal once every append already sent is written, and
// checkpoints the index so that the next start replays nothing.
func (j *journal) close() {
	close(j.reqs)
	<-j.done
	<-j.cpDone
}
