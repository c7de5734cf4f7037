package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/attention"
)

// RunOptions are the terminal side of running a window.
type RunOptions struct {
	// Input and Output default to the terminal.
	Input  io.Reader
	Output io.Writer
	// AltScreen draws on the alternate screen, as a full-screen program
	// should; tests leave it off.
	AltScreen bool
	// FPS is the frame rate of Bubble Tea's renderer (with Ticker);
	// 0 means DefaultFPS. Painting on demand uses PaintGap.
	FPS int
	// Ticker paints with Bubble Tea's own renderer, which paints on a
	// ticker at FPS, instead of on demand; benchmarks compare the two.
	Ticker bool
}

// DefaultFPS is how often Bubble Tea's own renderer (RunOptions.Ticker)
// paints. It wakes up at this rate even when nothing changes; on a
// virtual machine 30 wake-ups a second cost about 0.4% of a core, and a
// change waits up to a whole frame.
const DefaultFPS = 30

// PaintGap is the shortest time between two frames painted on demand
// (the default): a change is painted at once unless a frame went out
// less than PaintGap ago, and nothing wakes the process while nothing
// changes. It equals the ledger feed's DefaultFrameGap, so a stream of
// updates is painted as fast as it is read, and no faster.
const PaintGap = DefaultFrameGap

// Run runs a window until the person quits, ctx ends or a signal
// (SIGINT, SIGTERM, SIGHUP) arrives, and restores the terminal on every
// way out: Bubble Tea restores it on return, on a panic in Update or View
// (which it recovers) and when its context ends. Commands still blocked
// on the feeds end with the context Run gives them, which it cancels
// before returning.
//
// Signals end the program through its context rather than through Bubble
// Tea's own handler: with both, a SIGTERM that also cancels the context
// leaves Bubble Tea v1.3's handler blocked on a send nobody receives, and
// the program never returns.
func Run(ctx context.Context, opts Options, ro RunOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	life, cancel := context.WithCancel(ctx)
	defer cancel()
	out := ro.Output
	if out == nil {
		out = os.Stdout
	}
	fps := ro.FPS
	if fps <= 0 {
		fps = DefaultFPS
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFilter(Filter)}
	if ro.Input != nil {
		popts = append(popts, tea.WithInput(ro.Input))
	}
	if ro.Output != nil {
		popts = append(popts, tea.WithOutput(ro.Output))
	}
	var err error
	if ro.Ticker {
		opts.Terminal = out
		if ro.AltScreen {
			popts = append(popts, tea.WithAltScreen())
		}
		m := New(life, opts)
		_, err = tea.NewProgram(m, append(popts, tea.WithFPS(fps))...).Run()
		resetTitle(m, out)
	} else {
		err = runOnDemand(ctx, life, opts, ro, out, popts)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return fmt.Errorf("window: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("window: %w", err)
	}
	return nil
}

// resetTitle clears a title the window left on the terminal, once its
// program returned (no Update runs any more, so reading m is safe).
func resetTitle(m *Model, out io.Writer) {
	if m.titleLeft() {
		if cmd := attention.Title(out, ""); cmd != nil {
			cmd()
		}
	}
}
