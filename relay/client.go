package relay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Client is the window's (and `daokit send`'s) end of the relay. It keeps
// one connection to the controller of a root, reconnecting with backoff
// whenever it drops, and resends a request that was cut off with the same
// message id, so that the controller acknowledges it exactly once.
//
// Its methods are everything a relay may do: forward (Forward, Control),
// observe (Observe, Ping, Notices). There is no way to express execute,
// route, takeover or release, and Send, the one method that takes an
// action, refuses them with Guard before anything reaches the wire.
//
// A Client is safe for concurrent use. Close it to stop its goroutines.
type Client struct {
	root string // absolute, or "" when only cfg.SocketPath is known
	cfg  ClientConfig

	mu        sync.Mutex
	cur       *clientConn   // nil while disconnected
	ready     chan struct{} // closed when cur is set; replaced when it goes
	state     StateChange
	observing bool
	pending   map[string]*pending
	// refused is closed, and refusal set, when the server (or the
	// socket folder's permissions) refused this user: waiting longer
	// cannot help, so waits end at once with the reason.
	refused     chan struct{}
	refusal     error
	refusedOnce sync.Once

	queue   *noticeQueue[inbound]
	notices chan Notice
	states  chan StateChange

	cancel    context.CancelFunc // ends the connection manager
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// pending is a request waiting for its answer.
type pending struct {
	ch      chan Envelope // cap 1
	observe bool
}

// NewClient returns a Client for the controller of root and starts
// connecting in the background; watch States to know when it is connected,
// or use Dial to wait. root may be empty if cfg.SocketPath is set.
func NewClient(root string, cfg ClientConfig) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if root == "" && cfg.SocketPath == "" {
		return nil, errors.New("relay: new client: no root and no socket path")
	}
	var abs string
	if root != "" {
		var err error
		if abs, err = filepath.Abs(root); err != nil {
			return nil, fmt.Errorf("relay: new client: %w", err)
		}
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		root:    abs,
		cfg:     cfg,
		ready:   make(chan struct{}),
		pending: make(map[string]*pending),
		queue:   newNoticeQueue[inbound](cfg.NoticeQueue, cfg.NoticeQueueBytes, nil),
		notices: make(chan Notice),
		states:  make(chan StateChange, 16),
		cancel:  cancel,
		closed:  make(chan struct{}),
		refused: make(chan struct{}),
	}
	c.wg.Go(func() { c.run(ctx) })
	c.wg.Go(c.deliver)
	return c, nil
}

// Dial is NewClient followed by a wait until the client is connected. If
// ctx ends first, the client is closed and the error wraps both ctx's error
// and the last connection error (CodeOf gives unavailable when no server
// listens).
func Dial(ctx context.Context, root string, cfg ClientConfig) (*Client, error) {
	c, err := NewClient(root, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := c.waitConn(ctx); err != nil {
		last := c.State().Err
		_ = c.Close()
		if last != nil {
			return nil, fmt.Errorf("relay: dial: %w: %w", err, last)
		}
		return nil, fmt.Errorf("relay: dial: %w", err)
	}
	return c, nil
}

// Forward sends an instruction the person typed and returns the
// controller's Ack, which comes only once the instruction is durable.
func (c *Client) Forward(ctx context.Context, text string) (Ack, error) {
	return c.sendBuilt(ctx)(ForwardEnvelope(text))
}

// FollowUp sends text as a follow-up of task taskID (of its run runID,
// or its latest run when runID is empty): the controller hands it to the
// task's next step attempt instead of starting a task of its own. The
// Ack comes once the follow-up is durable; a task the controller does
// not know is refused.
func (c *Client) FollowUp(ctx context.Context, taskID, runID, text string) (Ack, error) {
	return c.sendBuilt(ctx)(FollowUpEnvelope(taskID, runID, text))
}

// Control forwards a control request (cancel, retry, status) for the
// controller to decide, and returns its Ack.
func (c *Client) Control(ctx context.Context, ctl Control) (Ack, error) {
	return c.sendBuilt(ctx)(ControlEnvelope(ctl))
}

// sendBuilt sends an envelope a builder made, unless the builder refused.
func (c *Client) sendBuilt(ctx context.Context) func(Envelope, error) (Ack, error) {
	return func(env Envelope, err error) (Ack, error) {
		if err != nil {
			return Ack{}, err
		}
		return c.sendAck(ctx, env)
	}
}

// Observe subscribes to the controller's notices and returns its Status.
// The Status is also delivered on Notices (as a NoticeStatus) ahead of the
// notices that follow it, and after every reconnect the client observes
// again by itself, so a reader of Notices alone always has a fresh view.
func (c *Client) Observe(ctx context.Context) (Status, error) {
	reply, err := c.Send(ctx, Envelope{Type: TypeObserve, Action: ActionObserve})
	if err != nil {
		return Status{}, err
	}
	var st Status
	if err := reply.DecodeBody(&st); err != nil {
		return Status{}, err
	}
	return st, nil
}

// Ping measures one round trip to the server.
func (c *Client) Ping(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	if _, err := c.Send(ctx, Envelope{Type: TypePing, Action: ActionObserve}); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// Send is the low-level request: it runs Guard on env.Action first, so an
// action other than forward, observe or visualize is refused here with a
// *ForbiddenActionError and never sent. It then checks that the type is a
// request type and the action fits it, fills in the version and, if
// empty, a fresh ID, and returns the answer. An error answer is returned
// as an *Error, together with the envelope.
//
// If the connection drops before the answer, Send resends the same ID on
// the next connection, until ctx ends.
func (c *Client) Send(ctx context.Context, env Envelope) (Envelope, error) {
	env, err := PrepareRequest(env)
	if err != nil {
		return Envelope{}, err
	}
	reply, err := c.roundTrip(ctx, env)
	if err != nil {
		return reply, err
	}
	return reply, AnswerError(reply)
}

// sendAck sends a request answered by an ack.
func (c *Client) sendAck(ctx context.Context, env Envelope) (Ack, error) {
	reply, err := c.Send(ctx, env)
	if err != nil {
		return Ack{}, err
	}
	return DecodeAck(reply)
}

// Notices returns the channel of notices from the server (after Observe),
// plus NoticeStatus after each (re)subscription and NoticeDropped where
// notices were lost because the reader was slow. It is closed by Close.
func (c *Client) Notices() <-chan Notice { return c.notices }

// States returns the channel of connection state changes. When the reader
// lags, older changes are dropped: the latest one is always delivered. It
// is closed by Close, after a final StateClosed.
func (c *Client) States() <-chan StateChange { return c.states }

// State returns the current connection state.
func (c *Client) State() StateChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Close closes the connection and waits for every goroutine of the client.
// Calls in progress return ErrClosed. Close may be called more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancel()
		c.mu.Lock()
		cn := c.cur
		c.mu.Unlock()
		if cn != nil {
			cn.fail(ErrClosed)
		}
		c.wg.Wait()
		c.publish(StateChange{State: StateClosed})
		close(c.states)
		close(c.notices)
	})
	return nil
}

// deliver moves notices from the queue to the Notices channel, so that the
// reader never waits on the person's window.
func (c *Client) deliver() {
	for {
		in, lost, ok := c.queue.pop()
		if !ok {
			select {
			case <-c.queue.ready:
				continue
			case <-c.closed:
				return
			}
		}
		n, ok := in.notice()
		if lost > 0 {
			n, ok = Notice{Kind: NoticeDropped, Dropped: lost}, true
		}
		if !ok {
			continue
		}
		select {
		case c.notices <- n:
		case <-c.closed:
			return
		}
	}
}

// inbound is a notice as the client queues it: decoded, or still raw. Worker
// output, the bulk of any flood, stays raw until delivered, so the reader
// spends next to nothing on lines that may be dropped, and reaches the ack
// behind them sooner.
type inbound struct {
	n   Notice
	raw []byte // a whole notice line
}

// notice returns the decoded notice; ok is false for a raw line that does
// not decode, which is skipped.
func (in inbound) notice() (Notice, bool) {
	if in.raw == nil {
		return in.n, true
	}
	env, _, perr := decodeEnvelope(in.raw)
	var n Notice
	if perr != nil || env.DecodeBody(&n) != nil {
		return n, false
	}
	return n, true
}

// outputPrefix starts every worker output line encodeNotice writes; the
// client recognises those lines by it without decoding them.
var outputPrefix = []byte(`{"v":` + strconv.Itoa(Version) + `,"type":"notice","body":{"kind":"` + string(NoticeWorkerOutput) + `",`)
