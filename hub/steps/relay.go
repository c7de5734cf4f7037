package steps

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/nats-io/nats.go"

	"github.com/nats-io/nats.go/jetstream"
)

// RelayIO is where a relay prints the step's output, and what it tells
// people beside it.
type RelayIO struct {
	Stdout, Stderr io.Writer
	// Stop is closed when the controller stops the step (SIGTERM: a
	// cancel, a timeout, a stale worker).
	Stop <-chan struct{}
	// Announce is called when an agent starts the step (again, after a
	// redelivery: delivery > 1); nil: nothing said.
	Announce func(agent string, delivery int)
	// ReadBack is called when the relay reads back a dispatch that ended
	// under a previous controller (see Step.ReadBack); nil: nothing said.
	ReadBack func(dispatch int)
	// WarningAfter and StaleAfter are the controller's heartbeat
	// thresholds for the relay's silence: the relay speaks before them
	// for a step that is queued or computes on its agent (see pulse);
	// 0: it does not.
	WarningAfter, StaleAfter time.Duration
	// Waiting is called every WarningAfter/2 while no agent has started
	// the step, with its lane and how long it has waited since the
	// relay began; nil: nothing said.
	Waiting func(lane string, queued time.Duration)
	// Computing is called when the step printed nothing for
	// StaleAfter/2 while its agent's beats show it used cpu of CPU time
	// over the last while; nil: nothing said.
	Computing func(agent string, cpu, over time.Duration)
}

// Relay offers s (Key, Lane and the rest set; Dispatch is chosen here)
// and prints what the agents send back until the step's end, which
// becomes the exit code: the process exit code, or 128 + the signal that
// ended it. It follows the last dispatch of the step instead of
// offering the step again when that dispatch's relay died with its
// controller (see the package comment). ctx ends the relay without a
// verdict (the step is not stopped).
func Relay(ctx context.Context, c *Conn, s Step, o RelayIO) (int, error) {
	began := time.Now()
	var at followed
	err := through(ctx, func() (err error) { at, err = c.dispatchOf(ctx, s); return err })
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// The root's first remote step: its streams are made now (a
		// look-up of them on every step would cost the step two round
		// trips to the hub).
		if err := c.EnsureStreams(ctx); err != nil {
			return 0, err
		}
		at, err = c.dispatchOf(ctx, s)
	}
	if err != nil {
		return 0, err
	}
	s.Dispatch = at.dispatch
	if err := through(ctx, func() error { return c.offer(ctx, s, at) }); err != nil {
		return 0, err
	}
	d := at.dispatch
	pl := newPulse(o, s.Lane, began)
	defer pl.stop()
	if at.ended && o.ReadBack != nil {
		o.ReadBack(d)
		pl.said(time.Now())
	}
	// The beats are listened to before the records are followed: those
	// of a delivery whose start comes later are ignored.
	beats := make(chan Record, 16)
	if pl != nil {
		sub, err := c.ListenBeats(s.Key, d, beats)
		if err != nil {
			return 0, err
		}
		defer func() { _ = sub.Unsubscribe() }()
	}
	msgs := make(chan jetstream.Msg)
	followed := make(chan struct{})
	c.WatchReconnects()
	var pumped <-chan struct{}
	// The pump's own context ends with the relay: at the step's end a
	// pump that is making its consumer again (a hub restarting) must not
	// hold the relay, and with it the step's end, for a request timeout.
	pctx, endPump := context.WithCancel(ctx)
	defer endPump()
	err = through(ctx, func() (err error) { pumped, err = c.follow(pctx, s.Key, msgs, followed); return err })
	if err != nil {
		return 0, err
	}
	// Records after the end (a skip, a late end) are left unread.
	defer func() { close(followed); endPump(); <-pumped }()
	f := follower{c: c, s: s, o: o, ends: map[int]Record{}, pulse: pl}
	stop := o.Stop
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-stop:
			stop = nil
			if err := f.stop(ctx); err != nil {
				return 0, err
			}
		case r := <-beats:
			pl.beat(r, time.Now())
		case now := <-pl.C():
			pl.fire(now)
		case m := <-msgs:
			var r Record
			if json.Unmarshal(m.Data(), &r) != nil || r.Dispatch != d {
				continue
			}
			if end, ok := f.take(r); ok {
				return f.finish(ctx, end)
			}
		}
	}
}

// offer records a fresh dispatch and offers the step (a dispatch
// followed again is deduplicated by its id; one read back is not
// offered at all), the two at once: the relay's consumer replays the
// step's records from the first, so none is missed for being early, and
// a successor that finds the offer without its dispatch record offers
// the same dispatch again, which the hub stores once.
func (c *Conn) offer(ctx context.Context, s Step, at followed) error {
	var pending []jetstream.PubAckFuture
	if at.fresh {
		f, err := c.publishAsync(s.Key, Record{Type: TypeDispatch, Dispatch: at.dispatch, Attempt: s.Attempt})
		if err != nil {
			return err
		}
		pending = append(pending, f)
	}
	if !at.ended {
		if s.Bundle && s.Commit != "" {
			// From the folder the relay runs in: the step's worktree;
			// stored before the step is offered, for its agent fetches it.
			if err := c.PublishBundle(ctx, ".", s.Commit); err != nil {
				return err
			}
		}
		f, err := c.offerAsync(s)
		if err != nil {
			return err
		}
		pending = append(pending, f)
	}
	for _, f := range pending {
		if err := acked(ctx, f); err != nil {
			if errors.Is(err, jetstream.ErrNoStreamResponse) {
				// The step stream is gone (deleted under the root):
				// made again, and the step offered at once.
				if err := c.EnsureStreams(ctx); err != nil {
					return err
				}
				return c.Offer(ctx, s)
			}
			return err
		}
	}
	return nil
}

// followed is the dispatch a relay follows: fresh, it offers it (its
// record naming s's attempt); ended, it reads it back.
type followed struct {
	dispatch     int
	fresh, ended bool
}

// dispatchOf returns the dispatch of s's step to follow: the last one,
// unless it is closed or an earlier attempt's relay asked it to stop
// (given up on purpose), else a fresh one; but the last one is read
// back when it ran to its end unstopped (a stop asked for as the step
// ended does not undo it: its closed record says so, or for one still
// open its last end) and s's controller lacks that end (see readsBack).
func (c *Conn) dispatchOf(ctx context.Context, s Step) (followed, error) {
	key := s.Key
	last, err := c.Last(ctx, key, TypeDispatch)
	if err != nil || last == nil {
		return followed{dispatch: 1, fresh: true}, err
	}
	if readsBack(s, *last) {
		ran := last.Ran
		if last.Type == TypeDispatch {
			end, err := c.Last(ctx, key, TypeEnd)
			if err != nil {
				return followed{}, err
			}
			ran = end != nil && end.Dispatch == last.Dispatch && end.Delivery > 0 && end.Stopped == ""
		}
		if ran {
			return followed{dispatch: last.Dispatch, ended: true}, nil
		}
	}
	if last.Type == TypeDispatch {
		if last.Attempt == s.Attempt {
			// Offered for this very attempt: ahead of this relay, or by
			// a predecessor that died, was deposed or is stepping down,
			// whose relay may be stopping it right now. Followed, stop
			// or not: its end says whether the step ran (a stopped one
			// fails the attempt, and the next one offers it afresh).
			return followed{dispatch: last.Dispatch}, nil
		}
		stop, err := c.Last(ctx, key, TypeStop)
		if err != nil {
			return followed{}, err
		}
		if stop == nil || stop.Dispatch != last.Dispatch {
			return followed{dispatch: last.Dispatch}, nil
		}
	}
	return followed{dispatch: last.Dispatch + 1, fresh: true}, nil
}

// readsBack reports whether last, the step's last dispatch or closed
// record, is of a dispatch whose end s's controller lacks, to be read
// back if it ended: one closed by a relay of s's own attempt (a
// predecessor's: see Step.Attempt), or the dispatch s.ReadBack's relay
// followed, either still open (offered by that attempt or an earlier
// one) or closed by it. An open dispatch of s's own attempt is
// followed anyway (see dispatchOf): it may be this very relay's,
// offered ahead.
func readsBack(s Step, last Record) bool {
	if last.Type == TypeClosed {
		return last.Attempt == s.Attempt || (s.ReadBack > 0 && last.Attempt == s.ReadBack)
	}
	return s.ReadBack > 0 && last.Attempt <= s.ReadBack
}

// follower is a relay's view of its dispatch: the newest delivery an
// agent started, and the ends seen.
type follower struct {
	c       *Conn
	s       Step
	o       RelayIO
	cur     int
	stopped bool
	ends    map[int]Record
	pulse   *pulse // nil: none
}

// take applies one record of the dispatch and reports the end to finish
// with, if this record settles it.
func (f *follower) take(r Record) (Record, bool) {
	switch r.Type {
	case TypeStart:
		if r.Delivery > f.cur {
			f.cur = r.Delivery
			f.pulse.started(r.Agent, r.Delivery, time.Now())
			if f.o.Announce != nil {
				f.o.Announce(r.Agent, r.Delivery)
				f.pulse.said(time.Now())
			}
		}
	case TypeLine:
		if r.Delivery == f.cur {
			if len(r.Lines) > 0 {
				f.pulse.said(time.Now())
			}
			for _, l := range r.Lines {
				w := f.o.Stdout
				if l.Stream == StreamStderr {
					w = f.o.Stderr
				}
				_, _ = io.WriteString(w, l.Text+"\n")
			}
		}
	case TypeEnd:
		f.ends[r.Delivery] = r
		if r.Delivery == f.cur || r.Delivery == 0 {
			return r, true
		}
	case TypeSkip:
		// The end on record stands: the newest one seen.
		best, ok := Record{}, false
		for dl, e := range f.ends {
			if !ok || dl > best.Delivery {
				best, ok = e, true
			}
		}
		return best, ok
	}
	return Record{}, false
}

// stop asks for the step's end: a dispatch no agent started ends here
// (its end first, then the request, so that an agent that missed the
// request finds the end before it starts; see Agent); a started one is
// stopped by its agent, whose end the relay then waits for.
func (f *follower) stop(ctx context.Context) error {
	f.stopped = true
	if f.cur == 0 {
		if err := through(ctx, func() error {
			return f.c.Publish(ctx, f.s.Key, Record{Type: TypeEnd, Dispatch: f.s.Dispatch, Stopped: "cancelled", ExitCode: -1})
		}); err != nil {
			return err
		}
	}
	return through(ctx, func() error { return f.c.Publish(ctx, f.s.Key, Record{Type: TypeStop, Dispatch: f.s.Dispatch}) })
}

// finish prints the end's error, closes the dispatch in the name of the
// relay's attempt (the one whose controller now has the end, whichever
// attempt offered the dispatch) and returns the exit code.
func (f *follower) finish(ctx context.Context, end Record) (int, error) {
	if end.Error != "" {
		_, _ = io.WriteString(f.o.Stderr, end.Error+"\n")
	}
	code := ExitCode(end)
	if end.Patch != "" {
		// The step's change, into the worktree the relay runs in. One
		// that cannot be applied fails the step (it runs again afresh).
		if err := f.c.ApplyPatch(ctx, ".", end.Patch); err != nil {
			_, _ = io.WriteString(f.o.Stderr, "daokit: "+err.Error()+"\n")
			code = max(code, 1)
		}
	}
	if err := through(ctx, func() error {
		return f.c.Publish(ctx, f.s.Key, Record{Type: TypeClosed, Dispatch: f.s.Dispatch, Attempt: f.s.Attempt,
			Ran: end.Delivery > 0 && end.Stopped == ""})
	}); err != nil {
		return 0, err
	}
	return code, nil
}

// ExitCode is the exit status an end stands for: the process's code, or
// 128 + the signal that ended it, as a shell reports it.
func ExitCode(end Record) int {
	switch {
	case end.Signal > 0:
		return 128 + end.Signal
	case end.ExitCode < 0:
		return 1
	}
	return end.ExitCode
}

// outageWait bounds how long a relay tries a request again through a hub
// outage: longer than a hub takes to restart. Its error would end the
// relay, and the controller would take the step for failed and run it
// again, though the step runs or ran on its agent.
const outageWait = time.Minute

// through runs op, again every 100 ms while it fails for want of an
// answer from the hub (one restarting, or the link down), at most
// outageWait; a refusal or any other error is returned at once. op is
// idempotent: every record is stored once by its id.
func through(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(outageWait)
	for {
		err := op()
		if err == nil || !Unanswered(err) || time.Now().After(deadline) {
			return err
		}
		if !backoff.Sleep(ctx, 100*time.Millisecond) {
			return err
		}
	}
}

// Unanswered reports an error of a request the hub did not answer (a
// hub restarting, a link down), as opposed to one it refused or failed.
func Unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrDisconnected) || errors.Is(err, jetstream.ErrAsyncPublishTimeout)
}
