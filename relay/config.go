package relay

import (
	"fmt"
	"log/slog"
	"time"
)

// DefaultMaxLine is the default cap on one protocol line, in bytes without
// the newline. An instruction is a few lines of text; a megabyte leaves
// room for pasted logs while keeping one bad peer from costing much.
const DefaultMaxLine = 1 << 20

// ServerConfig tunes a Server. The zero value of a field means its default;
// DefaultServerConfig spells them out.
type ServerConfig struct {
	// Root is the absolute ledger root, sent in the hello so that a client
	// of another root refuses this server. Empty: not sent.
	Root string
	// MaxLine caps one line read from a client, in bytes without the
	// newline. A longer line gets too_large and the connection closes.
	MaxLine int
	// NoticeQueue caps the notices queued for one connection. Beyond it
	// worker output is dropped (and counted) so that memory stays bounded
	// for a reader that does not keep up.
	NoticeQueue int
	// NoticeQueueBytes caps the bytes of the notices queued for one
	// connection. It must hold at least one line of MaxLine bytes.
	NoticeQueueBytes int
	// WriteTimeout bounds one write to a client. A client that does not
	// read for this long (a suspended window) is disconnected; it
	// reconnects and re-observes when it wakes up.
	WriteTimeout time.Duration
	// NoticeDeadline bounds one write of notices to an observer (at most
	// WriteTimeout): an observer that does not take its notices within it
	// is closed, rather than hold a slot and a blocked writer for the
	// whole WriteTimeout.
	NoticeDeadline time.Duration
	// MaxConns caps the connections served at once. A window holds one,
	// a `daokit send` one for its duration. At the cap a new connection
	// displaces the oldest one that has not sent a complete line yet;
	// when there is none it is refused with busy (and counted). The cap
	// is lowered further so that FDReserve descriptors stay free.
	MaxConns int
	// RequestReserve is how many of the connection slots observers may
	// never take (at most a quarter of the cap): a request (`daokit send`,
	// a control) always finds a slot, even when observers that never read
	// fill the rest. An observe beyond the observers' share is refused
	// with busy and its connection closed.
	RequestReserve int
	// FDReserve is how many file descriptors below RLIMIT_NOFILE the
	// server never takes for connections: workers need pipes, log files
	// and the ledger, and a flood of connections must not starve them.
	FDReserve int
	// IdleTimeout closes a connection that neither observes nor sends a
	// line for this long (a connection opened and left silent). Windows
	// observe and are never idle in this sense.
	IdleTimeout time.Duration
	// ReadTimeout bounds the time from the first byte of a line to its
	// newline: a client that dribbles a message is cut off.
	ReadTimeout time.Duration
	// Logger receives connection-level events at debug and warn level.
	// Nil discards them.
	Logger *slog.Logger
}

// Defaults of the connection limits.
const (
	DefaultMaxConns    = 1024
	DefaultFDReserve   = 256
	DefaultIdleTimeout = 30 * time.Second
	DefaultReadTimeout = 10 * time.Second
	// DefaultRequestReserve is ServerConfig.RequestReserve's default.
	DefaultRequestReserve = 64
	// DefaultNoticeDeadline is ServerConfig.NoticeDeadline's default.
	DefaultNoticeDeadline = 5 * time.Second
)

// DefaultServerConfig returns the defaults.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		MaxLine:          DefaultMaxLine,
		NoticeQueue:      1024,
		NoticeQueueBytes: 4 << 20,
		WriteTimeout:     10 * time.Second,
		NoticeDeadline:   DefaultNoticeDeadline,
		MaxConns:         DefaultMaxConns,
		RequestReserve:   DefaultRequestReserve,
		FDReserve:        DefaultFDReserve,
		IdleTimeout:      DefaultIdleTimeout,
		ReadTimeout:      DefaultReadTimeout,
		Logger:           slog.New(slog.DiscardHandler),
	}
}

// withDefaults fills the zero fields.
func (c ServerConfig) withDefaults() ServerConfig {
	d := DefaultServerConfig()
	if c.MaxLine == 0 {
		c.MaxLine = d.MaxLine
	}
	if c.NoticeQueue == 0 {
		c.NoticeQueue = d.NoticeQueue
	}
	if c.NoticeQueueBytes == 0 {
		c.NoticeQueueBytes = max(d.NoticeQueueBytes, c.MaxLine)
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = d.WriteTimeout
	}
	if c.NoticeDeadline == 0 {
		c.NoticeDeadline = d.NoticeDeadline
	}
	if c.MaxConns == 0 {
		c.MaxConns = d.MaxConns
	}
	if c.RequestReserve == 0 {
		c.RequestReserve = d.RequestReserve
	}
	if c.FDReserve == 0 {
		c.FDReserve = d.FDReserve
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = d.IdleTimeout
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = d.ReadTimeout
	}
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	return c
}

// Validate reports a field out of range, with its value, after defaults
// are applied.
func (c ServerConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.MaxLine < 256:
		return fmt.Errorf("relay: server config: MaxLine %d is below 256 bytes", c.MaxLine)
	case c.NoticeQueue < 1:
		return fmt.Errorf("relay: server config: NoticeQueue %d is below 1", c.NoticeQueue)
	case c.NoticeQueueBytes < c.MaxLine:
		return fmt.Errorf("relay: server config: NoticeQueueBytes %d cannot hold one line of MaxLine %d", c.NoticeQueueBytes, c.MaxLine)
	case c.WriteTimeout < 0 || c.NoticeDeadline < 0:
		return fmt.Errorf("relay: server config: negative write timeout (%v, notices %v)", c.WriteTimeout, c.NoticeDeadline)
	case c.RequestReserve < 0:
		return fmt.Errorf("relay: server config: RequestReserve %d is negative", c.RequestReserve)
	case c.MaxConns < 1 || c.FDReserve < 0:
		return fmt.Errorf("relay: server config: MaxConns %d must be positive and FDReserve %d not negative", c.MaxConns, c.FDReserve)
	case c.IdleTimeout < 0 || c.ReadTimeout < 0:
		return fmt.Errorf("relay: server config: negative timeout (idle %v, read %v)", c.IdleTimeout, c.ReadTimeout)
	}
	return nil
}

// ClientConfig tunes a Client. The zero value of a field means its default;
// DefaultClientConfig spells them out.
type ClientConfig struct {
	// SocketPath, if set, is dialled as is instead of resolving the
	// root's socket with ResolveSocket before each attempt.
	SocketPath string
	// DialTimeout bounds one connection attempt, hello included.
	DialTimeout time.Duration
	// WriteTimeout bounds one write to the server. A write that times out
	// breaks the connection (the line may be half sent); the request is
	// resent on the next one.
	WriteTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between failed connection
	// attempts: it doubles from MinBackoff up to MaxBackoff, with jitter,
	// and starts again from MinBackoff after a success.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// MaxLine caps one line read from the server, and one request sent.
	MaxLine int
	// NoticeQueue and NoticeQueueBytes bound the notices received but not
	// yet taken from Notices, as on the server: beyond them worker output
	// is dropped and a NoticeDropped notice says how much.
	NoticeQueue      int
	NoticeQueueBytes int
	// Logger receives connection events at debug level. Nil discards them.
	Logger *slog.Logger
}

// DefaultClientConfig returns the defaults.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		DialTimeout:      2 * time.Second,
		WriteTimeout:     5 * time.Second,
		MinBackoff:       50 * time.Millisecond,
		MaxBackoff:       5 * time.Second,
		MaxLine:          DefaultMaxLine,
		NoticeQueue:      4096,
		NoticeQueueBytes: 8 << 20,
		Logger:           slog.New(slog.DiscardHandler),
	}
}

// withDefaults fills the zero fields.
func (c ClientConfig) withDefaults() ClientConfig {
	d := DefaultClientConfig()
	set := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	set(&c.DialTimeout, d.DialTimeout)
	set(&c.WriteTimeout, d.WriteTimeout)
	set(&c.MinBackoff, d.MinBackoff)
	set(&c.MaxBackoff, max(d.MaxBackoff, c.MinBackoff))
	if c.MaxLine == 0 {
		c.MaxLine = d.MaxLine
	}
	if c.NoticeQueue == 0 {
		c.NoticeQueue = d.NoticeQueue
	}
	if c.NoticeQueueBytes == 0 {
		c.NoticeQueueBytes = max(d.NoticeQueueBytes, c.MaxLine)
	}
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	return c
}

// Validate reports a field out of range, with its value, after defaults
// are applied.
func (c ClientConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.DialTimeout < 0 || c.WriteTimeout < 0:
		return fmt.Errorf("relay: client config: negative timeout (dial %v, write %v)", c.DialTimeout, c.WriteTimeout)
	case c.MinBackoff < 0 || c.MaxBackoff < c.MinBackoff:
		return fmt.Errorf("relay: client config: backoff %v..%v is not a range", c.MinBackoff, c.MaxBackoff)
	case c.MaxLine < 256:
		return fmt.Errorf("relay: client config: MaxLine %d is below 256 bytes", c.MaxLine)
	case c.NoticeQueue < 1:
		return fmt.Errorf("relay: client config: NoticeQueue %d is below 1", c.NoticeQueue)
	case c.NoticeQueueBytes < c.MaxLine:
		return fmt.Errorf("relay: client config: NoticeQueueBytes %d cannot hold one line of MaxLine %d", c.NoticeQueueBytes, c.MaxLine)
	}
	return nil
}
