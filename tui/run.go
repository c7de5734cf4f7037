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
)

// RunOptions are the terminal side of running a window.
type RunOptions struct {
	// Input and Output default to the terminal.
	Input  io.Reader
	Output io.Writer
	// AltScreen draws on the alternate screen, as a full-screen program
	// should; tests leave it off.
	AltScreen bool
	// FPS caps frames per second; 0 means DefaultFPS.
	FPS int
}

// DefaultFPS is how often the renderer paints. Bubble Tea's renderer
// wakes up at this rate even when nothing changes; on a virtual machine
// 60 wake-ups a second alone cost about 0.8% of a core, 30 about 0.4%,
// while 30 frames keep the append-to-screen latency near 20 ms.
const DefaultFPS = 30

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
	opts.Terminal = ro.Output
	if opts.Terminal == nil {
		opts.Terminal = os.Stdout
	}
	m := New(life, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFilter(Filter)}
	if ro.Input != nil {
		popts = append(popts, tea.WithInput(ro.Input))
	}
	if ro.Output != nil {
		popts = append(popts, tea.WithOutput(ro.Output))
	}
	if ro.AltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	fps := ro.FPS
	if fps <= 0 {
		fps = DefaultFPS
	}
	popts = append(popts, tea.WithFPS(fps))
	_, err := tea.NewProgram(m, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return fmt.Errorf("window: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("window: %w", err)
	}
	return nil
}
