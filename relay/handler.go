package relay

import "context"

// Handler is what the controller plugs into a Server. The server calls it
// from the connection's goroutine, one request at a time per connection
// (so instructions from one window keep their order), and concurrently
// across connections.
//
// The context ends when the server shuts down, not when the connection
// drops: an instruction half-way through its durable append finishes, and
// the client's resend of the same id then gets the original ack.
//
// A method that returns an *Error sends it to the client as is (the
// controller may use its own codes); any other error is sent as internal.
// Methods should return quickly: acknowledge, and do the work elsewhere.
type Handler interface {
	// HandleInstruction makes the instruction durable (appended to the
	// ledger with req.ID as its dedup key) and only then returns its Ack.
	// It must be idempotent by req.ID: for an id it has acknowledged
	// before, it returns the original Ack with Duplicate set. Two calls
	// with the same id never overlap; the relay makes the second wait.
	HandleInstruction(ctx context.Context, req Request, in Instruction) (Ack, error)
	// HandleControl records a control request for the controller to
	// decide, under the same durability and idempotency rules as
	// HandleInstruction. An unknown run is the controller's own error code.
	HandleControl(ctx context.Context, req Request, c Control) (Ack, error)
	// HandleObserve returns the current Status. The connection is already
	// subscribed to notices when it is called, and notices sent meanwhile
	// are delivered after the reply, so a reader that applies the Status
	// and then the notices misses nothing.
	HandleObserve(ctx context.Context, req Request) (Status, error)
}

// Request describes the request a Handler is asked to handle.
type Request struct {
	// ID is the client-chosen message id: the dedup key.
	ID string
	// Conn numbers the connection within this server, for logs.
	Conn uint64
	// Peer is the client process, as the kernel reports it; zero for a
	// request that came through the hub.
	Peer Peer
	// Via names the way a request came when it was not the socket (the
	// hub: "hub"), for logs; empty for the socket.
	Via string
}

// Peer is the credentials of the process at the other end of a connection,
// from SO_PEERCRED (LOCAL_PEERCRED on macOS).
type Peer struct {
	PID int32
	UID uint32
	GID uint32
}
