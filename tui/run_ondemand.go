package tui

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// runOnDemand runs the program with its renderer off and a frameWriter
// painting the root's frames (see render.go). With its renderer off,
// Bubble Tea neither sets the terminal's modes nor makes it raw, so this
// does both, and undoes them on every way out.
func runOnDemand(ctx, life context.Context, opts Options, ro RunOptions, out io.Writer, popts []tea.ProgramOption) error {
	if ro.Input == nil {
		if f := os.Stdin; term.IsTerminal(f.Fd()) {
			st, err := term.MakeRaw(f.Fd())
			if err != nil {
				return err
			}
			defer func() { _ = term.Restore(f.Fd(), st) }()
		}
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w := newFrameWriter(wctx, out, PaintGap)
	on, off := cursorHide+pasteOn+mouseOn, mouseOff+pasteOff+cursorShow
	if ro.AltScreen {
		on, off = altScreenOn+on, off+altScreenOff
	}
	_, _ = io.WriteString(w, on)
	defer func() {
		stop()
		w.wait()
		_, _ = io.WriteString(w, off)
	}()
	opts.Terminal = w
	m := &onDemand{Model: New(life, opts), w: w}
	p := tea.NewProgram(m, append(popts, tea.WithoutRenderer())...)
	if f, ok := out.(term.File); ok && term.IsTerminal(f.Fd()) {
		done := followSize(wctx, p, f.Fd())
		defer func() { stop(); <-done }()
	}
	_, err := p.Run()
	resetTitle(m.Model, w)
	return err
}

// followSize sends the terminal's size to p now and after each SIGWINCH
// (Bubble Tea does so only with its renderer on), until ctx ends. The
// returned channel closes when it has stopped.
func followSize(ctx context.Context, p *tea.Program, fd uintptr) <-chan struct{} {
	done := make(chan struct{})
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	send := func() {
		if w, h, err := term.GetSize(fd); err == nil {
			// Send waits until the program runs, and returns once
			// it has ended.
			p.Send(tea.WindowSizeMsg{Width: w, Height: h})
		}
	}
	go func() {
		defer close(done)
		defer signal.Stop(winch)
		send()
		for {
			select {
			case <-ctx.Done():
				return
			case <-winch:
				send()
			}
		}
	}()
	return done
}
