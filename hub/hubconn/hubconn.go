// Package hubconn is the one way daokit's clients of a hub connect to it:
// the outbox, the leader, agent hosts, mirrors and remote people all
// reconnect forever, present the nkey the hub generated, and bound each
// request by the same timeout. It imports no server code, so that a
// client-only build stays small.
package hubconn

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultTimeout bounds each request to the hub when Options says none.
const DefaultTimeout = 5 * time.Second

// Options say which hub to reach and as whom.
type Options struct {
	// URL is the hub's client address (nats://host:port, tls://…).
	URL string
	// Credentials is the nkey seed file the hub generated (admin.nk in
	// its data directory); empty: connect without one (a hub started
	// with --anonymous on loopback).
	Credentials string
	// Name is the connection's name in the hub's monitoring
	// ("daokit outbox r", "daokit agent gpu-1").
	Name string
	// Timeout bounds the dial and each JetStream request; default
	// DefaultTimeout.
	Timeout time.Duration
	// Ping is the keepalive interval: a connection that stops answering
	// is noticed after two of them. Default DefaultPing; nats.go's own,
	// two minutes, is far longer than an agent host's AckWait.
	Ping time.Duration
}

// DefaultPing is the keepalive interval when Options says none: a
// silent hub is noticed in seconds.
const DefaultPing = 2 * time.Second

// errCredentials marks a key file that cannot be used.
var errCredentials = errors.New("hub credentials")

// Conn is an open connection to a hub and its JetStream context.
type Conn struct {
	NC *nats.Conn
	JS jetstream.JetStream
}

// Dial connects to the hub. The connection reconnects forever (every
// 100 ms): a hub that restarts is an outage, not an end.
func Dial(o Options) (*Conn, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	ping := o.Ping
	if ping <= 0 {
		ping = DefaultPing
	}
	opts := []nats.Option{nats.Name(o.Name), nats.MaxReconnects(-1),
		nats.ReconnectWait(100 * time.Millisecond), nats.Timeout(o.Timeout),
		nats.PingInterval(ping), nats.MaxPingsOutstanding(2)}
	if o.Credentials != "" {
		nk, err := nats.NkeyOptionFromSeed(o.Credentials)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errCredentials, err)
		}
		opts = append(opts, nk)
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("hub %s: %w", o.URL, err)
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(o.Timeout), jetstream.WithPublishAsyncTimeout(o.Timeout))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("hub %s: %w", o.URL, err)
	}
	return &Conn{NC: nc, JS: js}, nil
}

// Close closes the connection.
func (c *Conn) Close() { c.NC.Close() }
