package live

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// WaitLedger waits for the next ledger update. Re-arm it after each
// LedgerMsg.
func WaitLedger(ctx context.Context, feed LedgerFeed) tea.Cmd {
	return func() tea.Msg {
		u, err := feed.Next(ctx)
		return LedgerMsg{Update: u, Err: err}
	}
}

// WaitRelay waits for the next relay notice or connection change. Re-arm
// it after each RelayMsg.
func WaitRelay(ctx context.Context, r Relay) tea.Cmd {
	return func() tea.Msg {
		u, err := r.Next(ctx)
		return RelayMsg{Update: u, Err: err}
	}
}

// Tick fires one TickMsg after d. Re-arm it after each TickMsg: there is
// one tick in flight at any time, whatever else happens.
func Tick(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(t time.Time) tea.Msg { return TickMsg{Now: t} })
}

// Forward forwards text, giving up after timeout (or when ctx ends).
func Forward(ctx context.Context, r Relay, seq int, text string, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ack, err := r.Forward(c, text)
		return ForwardedMsg{Seq: seq, Text: text, Ack: ack, Err: err}
	}
}

// Control forwards a control request, giving up after timeout.
func Control(ctx context.Context, r Relay, seq int, kind ControlKind, reason string, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ack, err := r.Control(c, kind, reason)
		return ControlledMsg{Seq: seq, Kind: kind, Ack: ack, Err: err}
	}
}

// Observe subscribes to notices; it waits for a controller as long as ctx
// lasts.
func Observe(ctx context.Context, r Relay) tea.Cmd {
	return func() tea.Msg { return ObservedMsg{Err: r.Observe(ctx)} }
}

// ProbeController looks for a live controller.
func ProbeController(ctx context.Context, c Controllers) tea.Cmd {
	return func() tea.Msg {
		p, err := c.Probe(ctx)
		return ProbedMsg{Probe: p, Err: err}
	}
}

// StartController starts a controller child.
func StartController(ctx context.Context, c Controllers) tea.Cmd {
	return func() tea.Msg {
		p, err := c.Start(ctx)
		return StartedMsg{Proc: p, Err: err}
	}
}

// WaitExit waits for a started controller to exit.
func WaitExit(ctx context.Context, p Process) tea.Cmd {
	return func() tea.Msg {
		e, err := p.Wait(ctx)
		return ExitedMsg{PID: p.PID(), Exit: e, Err: err}
	}
}
