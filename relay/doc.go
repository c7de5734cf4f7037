// Package relay is the socket between daokit's window (the observer relay)
// and its controller: the protocol, the server the controller runs, the
// client the window and `daokit send` use, and the guard that keeps the
// window to what a relay may do.
//
// # The boundary
//
// A relay may forward, observe and visualize; nothing else. Guard says so
// for any action string, with the Python DAOKit's denial text. The Client
// has no method for anything else (Forward and Control forward, Observe
// and Ping observe), and its one low-level method, Send, runs Guard before
// a byte is written. The Server checks every request again, and its
// Handler has no method through which execute, route, takeover or release
// could arrive. Control requests (cancel, retry, status) are forwards: the
// person asks, the controller decides. Their kinds are a closed set, so
// that "takeover" cannot come in as a control kind either.
//
// A person's operator commands (`daokit takeover`, `handoff --create`,
// `handoff --apply`) reach a live controller as operate requests, also
// forwards, on the CLI's own short connection: the controller carries
// them out as the root's only writer (an optional Operator on the
// Handler). GuardOperation refuses them on a connection that observes,
// as every window's does, so the window stays a relay. Their kinds are a
// closed set too.
//
// # Protocol
//
// JSON lines (UTF-8, one object per line, "\n"-terminated, a trailing
// "\r" ignored, blank lines skipped) over a unix stream socket. Every line
// is an Envelope:
//
//	{"v":1, "id":"…", "type":"…", "re":"…", "action":"…", "body":{…}}
//
// Its fields:
//
//   - v: Version, on every line.
//   - id: on requests, chosen by the client (NewID: 128 random bits in
//     hex; 1–128 printable ASCII characters). It is the ledger dedup key:
//     a request resent after a reconnect keeps its id, and the controller
//     answers it with the original Ack and Duplicate set.
//   - type: requests hello, instruction, control, operate, observe,
//     ping; answers hello, ack, outcome, reply, pong, error; and notice,
//     which the server pushes.
//   - re: on answers, the id of the request answered.
//   - action: on requests, the relay action performed: forward for
//     instruction, control and operate, observe for observe, ping and
//     hello.
//   - body: Hello, Instruction, Control, Operation, Ack, Outcome, Status,
//     Notice or Error,
//     according to the type. Unknown fields are ignored.
//
// The server speaks first: a hello (its pid, root and line cap), or an
// error forbidden_peer if the peer runs as another user (SO_PEERCRED), after
// which it closes the connection. Then each request gets exactly one
// answer: instruction and control an ack, operate an outcome (what the
// command prints), observe a reply (a Status, after
// which the connection receives notices), ping a pong, hello a hello, or an
// error naming the request in re.
//
// Error codes are stable strings (see Code); the window translates them
// with Describe. A line that breaks the protocol — not JSON (malformed),
// another version (bad_version), longer than the cap, 1 MiB by default
// (too_large, enforced while reading), or of an unknown type
// (unknown_type) — gets an error reply and the connection is closed; the
// server goes on serving everyone else. A request with a bad field
// (bad_request) or a forbidden action (forbidden_action) gets an error and
// the connection stays open. internal and unavailable come from the
// controller, which may also use codes of its own.
//
// # Ordering, pressure and notices
//
// The server handles one connection's requests in order, one at a time
// (instructions from one window keep their order), and connections in
// parallel. Requests with the same id never reach the Handler at once: the
// second waits for the first's answer. Answers are written before queued
// notices, so an ack never waits behind a flood of worker output. A request
// cut short by the server's shutdown gets no answer at all, so that the
// client resends it to the next controller rather than report a failure.
//
// Notices (route, run_state, worker_output, controller, status) go only to
// connections that observe, through a bounded queue per connection: a
// state notice replaces a queued one with the same subject, worker output
// is dropped first when the queue is full, and each loss is reported in
// place by one notice of kind dropped with the count. Server.Notify never
// blocks; a reader that stops reading for WriteTimeout is disconnected.
// The client queues what it reads the same way, so that a slow window
// never stalls the acks it waits for.
//
// # Socket
//
// Listen puts the socket at <root>/state/run/relay.sock, mode 0600, in a
// folder of mode 0700 checked to be ours and not a symlink. When that path
// is longer than a socket address allows (108 bytes on Linux), it uses
// relay-<hash of root>.sock in a private per-user folder
// ($XDG_RUNTIME_DIR/daokit, else $TMPDIR/daokit-<uid>, else
// /tmp/daokit-<uid>, checked the same way) and records the path
// in <root>/state/run/socket-path, the only file relay writes in the
// ledger folder; ResolveSocket reads it. A socket left by a dead server is
// replaced; a live one is never taken over.
//
// # Client
//
// The Client reconnects on its own with capped exponential backoff and
// jitter, reset after a connection that lasted, and reports its state on
// States (connecting, connected, disconnected, reconnecting with the
// attempt count, closed). A request cut off by a dropped connection is
// resent with the same id until its context ends. After a reconnect the
// client observes again by itself and delivers the fresh Status on
// Notices. Close waits for every goroutine it started.
//
// # Time and measurement
//
// relay reads the clock only for deadlines, backoff and Ping's round
// trip; no protocol decision depends on it. The benchmarks time acknowledgements end to end
// through a real Client with relay/relaytest/latency, which the binary
// does not contain.
package relay
