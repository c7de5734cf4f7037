package relay

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// dispatch handles one checked request and queues its answer on c. It
// returns an error when the connection must close: an observe beyond the
// observers' share of the slots.
//
// Once the server is shutting down it sends no error answers: a request
// the shutdown cut short stays unanswered, so the client resends it, with
// its id, to the next controller instead of reporting a failure.
func (s *Server) dispatch(ctx context.Context, c *conn, env Envelope) error {
	if env.Type == TypeObserve {
		if !s.admitObserver(c) {
			e := &Error{Code: CodeBusy, Detail: fmt.Sprint(s.observerCap)}
			c.sendError(env.ID, e)
			return e
		}
		s.observe(ctx, c, Request{ID: env.ID, Conn: c.id, Peer: c.peer})
		return nil
	}
	reply := s.answer(ctx, c, env)
	if reply.Type == TypeError && ctx.Err() != nil {
		return nil
	}
	c.send(reply)
	return nil
}

// answer handles a checked request other than observe.
func (s *Server) answer(ctx context.Context, c *conn, env Envelope) Envelope {
	req := Request{ID: env.ID, Conn: c.id, Peer: c.peer}
	if env.Type == TypeOperate {
		return s.operate(ctx, c, req, env)
	}
	return s.handle(ctx, req, env)
}

// handle answers a checked ping, hello, instruction or control request,
// whichever way it came.
func (s *Server) handle(ctx context.Context, req Request, env Envelope) Envelope {
	switch env.Type {
	case TypePing:
		return answer(TypePong, env.ID, nil)
	case TypeHello:
		return answer(TypeHello, env.ID, s.hello())
	case TypeInstruction:
		var in Instruction
		if env.DecodeBody(&in) != nil {
			return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "body"})
		}
		if strings.TrimSpace(in.Text) == "" {
			return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "text"})
		}
		return s.ack(ctx, env.ID, func() (Ack, error) { return s.h.HandleInstruction(ctx, req, in) })
	case TypeControl:
		var ctl Control
		if env.DecodeBody(&ctl) != nil {
			return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "body"})
		}
		if !ctl.Kind.Valid() {
			return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "kind"})
		}
		return s.ack(ctx, env.ID, func() (Ack, error) { return s.h.HandleControl(ctx, req, ctl) })
	}
	// checkRequest lets only request types through; observe and operate
	// went elsewhere.
	return errorAnswer(env.ID, &Error{Code: CodeUnknownType, Detail: string(env.Type)})
}

// ack runs a handler call that answers with an Ack, one at a time per id.
func (s *Server) ack(ctx context.Context, id string, call func() (Ack, error)) Envelope {
	a, err := s.flights.do(ctx, id, func() (a Ack, err error) {
		defer recoverInto(&err)
		return call()
	}, func(a Ack) Ack { a.Duplicate = true; return a })
	if err != nil {
		return errorAnswer(id, wireError(err))
	}
	return answer(TypeAck, id, a)
}

// observe subscribes c and answers with the Status. Notices queued while
// the handler runs are held back until the reply is queued, so that the
// reader gets the Status before them.
func (s *Server) observe(ctx context.Context, c *conn, req Request) {
	c.holding.Store(true)
	c.observing.Store(true)
	st, err := func() (st Status, err error) {
		defer recoverInto(&err)
		return s.h.HandleObserve(ctx, req)
	}()
	if err != nil {
		c.observing.Store(false)
		c.holding.Store(false)
		s.releaseObserver(c)
		if ctx.Err() == nil {
			c.sendError(req.ID, wireError(err))
		}
		return
	}
	c.send(answer(TypeReply, req.ID, st))
	c.holding.Store(false)
	c.notices.signal()
}

func errorAnswer(re string, e *Error) Envelope { return answer(TypeError, re, e) }

// recoverInto turns a handler panic into an internal error, so that one
// bad request does not take the controller down with it.
func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = &Error{Code: CodeInternal, Detail: fmt.Sprint("panic: ", r)}
	}
}

// flightGroup makes concurrent requests with the same id share one handler
// call. A client resends an id after a reconnect, possibly while the first
// attempt (from the dropped connection) is still being handled; the second
// waits and gets the first one's Ack with Duplicate set, and the handler
// never sees the id twice at once.
//
// dup marks the shared answer as a duplicate's.
type flightGroup[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
}

type flight[T any] struct {
	done chan struct{}
	ack  T
	err  error
}

func (g *flightGroup[T]) do(ctx context.Context, id string, call func() (T, error), dup func(T) T) (T, error) {
	var zero T
	g.mu.Lock()
	if f, ok := g.m[id]; ok {
		g.mu.Unlock()
		select {
		case <-f.done:
			if f.err != nil {
				return zero, f.err
			}
			return dup(f.ack), nil
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	if g.m == nil {
		g.m = make(map[string]*flight[T])
	}
	f := &flight[T]{done: make(chan struct{})}
	g.m[id] = f
	g.mu.Unlock()

	f.ack, f.err = call()
	g.mu.Lock()
	delete(g.m, id)
	g.mu.Unlock()
	close(f.done)
	return f.ack, f.err
}
