package mirror

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Hub says which hub to reach and how.
type Hub struct {
	// URL is the hub's client address (nats://host:port, tls://…).
	URL string
	// Credentials is the nkey seed file the hub generated (admin.nk in
	// its data directory); empty: none (a hub started with --anonymous
	// on loopback).
	Credentials string
	// Timeout bounds each request to the hub; default 5 s.
	Timeout time.Duration
	// Name tells the hub's monitoring who this client is.
	Name string
}

// DefaultTimeout bounds each request to the hub when Hub.Timeout is 0.
const DefaultTimeout = 5 * time.Second

// Connect dials the hub, reconnecting for ever after a loss (a hub that
// restarts is an outage, not an end), and returns the JetStream API on
// the connection. The caller closes the connection.
func Connect(h Hub) (*nats.Conn, jetstream.JetStream, error) {
	if h.Timeout <= 0 {
		h.Timeout = DefaultTimeout
	}
	opts := []nats.Option{nats.Name(h.Name), nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond),
		nats.Timeout(h.Timeout),
		// Notice a hub that stopped answering in seconds, not the
		// client's default minutes.
		nats.PingInterval(2 * time.Second), nats.MaxPingsOutstanding(2)}
	if h.Credentials != "" {
		nk, err := nats.NkeyOptionFromSeed(h.Credentials)
		if err != nil {
			return nil, nil, fmt.Errorf("hub credentials: %w", err)
		}
		opts = append(opts, nk)
	}
	nc, err := nats.Connect(h.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("hub %s: %w", h.URL, err)
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(h.Timeout), jetstream.WithPublishAsyncTimeout(h.Timeout))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}
