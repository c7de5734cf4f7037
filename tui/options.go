package tui

import (
	"io"
	"log/slog"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/live/outboxes"
	"github.com/daokit/daokit/tui/memory"
	"github.com/daokit/daokit/tui/relayctx"
	"github.com/daokit/daokit/tui/theme"
)

// Options configure a window. Everything has a default; a window without
// a Feed shows no ledger.
type Options struct {
	// Root is the ledger root, for display.
	Root string
	// ReadOnly makes the window an observer only (daokit watch): no
	// input, no relay, no controller.
	ReadOnly bool
	// Lang is the language to start in (a tag of i18n.Supported).
	Lang string
	// Feed delivers the ledger.
	Feed live.LedgerFeed
	// Relay links the window to the controller; nil leaves the window
	// without one (it then says so when the person sends).
	Relay live.Relay
	// Controllers finds and starts the controller; nil never starts one.
	Controllers live.Controllers
	// OpenOutbox opens the team's outbox read-only for the issues view
	// and the roles pane, whatever its backend (cmd/daokit gives
	// outbox/pick's); nil reads SQLite files and mirrors only, and says
	// an outbox on a hub cannot be read.
	OpenOutbox outboxes.Opener
	// Context keeps the relay context between runs; nil keeps it in
	// memory only.
	Context relayctx.Store
	// ContextPolicy says when to compact the relay context; nil means
	// relayctx.DefaultPolicy.
	ContextPolicy *relayctx.Policy
	// Styles are built from the default theme for the default renderer
	// when nil.
	Styles *theme.Styles
	// Wide reports that the terminal draws East Asian ambiguous
	// characters two cells wide (see ApplyWidthPolicy).
	Wide bool
	// Now stamps conversation entries; time.Now when nil.
	Now func() time.Time
	// Tick is the period of the clock tick; 0 means one second, and a
	// negative value turns it off (tests drive TickMsg themselves).
	Tick time.Duration
	// Zone is the time zone of clock times; local time when nil.
	Zone *time.Location
	// EventCapacity is how many events the event pane keeps.
	EventCapacity int
	// ForwardTimeout bounds how long a message waits for a controller
	// to take it; 0 means one minute.
	ForwardTimeout time.Duration
	// Probe, if set, is told when an update brought new events, just
	// before Bubble Tea draws the frame that shows them (benchmarks
	// measure the append-to-frame latency with it).
	Probe FrameProbe
	// Memory keeps the conversation and the input history between runs
	// of the window (a file of its own under the root); nil keeps them
	// in memory only.
	Memory memory.Store
	// Attention is how the window calls its person (banner, bell,
	// title, notify command); nil means attention.DefaultConfig.
	Attention *attention.Config
	// Terminal is where the bell rings; Run sets it to the program's
	// output. nil rings no bell.
	Terminal io.Writer
	// Logger receives debug logs; discarded when nil. It must not write
	// to the terminal.
	Logger *slog.Logger
}

// FrameProbe observes frames for instrumentation.
type FrameProbe interface {
	// EventsDrawn is called when the window has handled an update that
	// the feed read at readAt; the View that follows is the first to
	// draw its events. It runs on the program's goroutine.
	EventsDrawn(events []ledger.Event, readAt time.Time)
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick == 0 {
		o.Tick = time.Second
	}
	if o.ForwardTimeout <= 0 {
		o.ForwardTimeout = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ReadOnly {
		o.Relay, o.Controllers = nil, nil
	}
	if o.Attention == nil {
		c := attention.DefaultConfig()
		o.Attention = &c
	}
	return o
}
