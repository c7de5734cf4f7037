package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/live"
)

// processControllers finds the controller of a root and starts
// `daokit controller` when there is none. It is the window's
// live.Controllers, and the dashboard's and the CLI's way to start one.
type processControllers struct {
	self, root string
	// loc words a refused start in the reader's language; its language
	// is also the started controller's.
	loc *i18n.Localizer
}

// newProcessControllers is the controllers of root, started as self.
func (a *app) newProcessControllers(root string) *processControllers {
	return &processControllers{self: a.self, root: root, loc: a.loc}
}

var _ live.Controllers = (*processControllers)(nil)

// Probe implements live.Controllers by liveness's one rule of whether a
// controller holds the root (the lock file's pid, which must also be
// alive: a controller that was killed leaves it behind; its standing
// lease); the socket file is reported as well. It never takes the lock,
// which would race with a controller that is starting.
func (c *processControllers) Probe(context.Context) (live.Probe, error) {
	ctl := liveness.ReadController(c.root, time.Now())
	p := live.Probe{PID: ctl.PID, Live: ctl.Live(), LeasePID: ctl.LeasePID}
	if sock, err := relay.ResolveSocket(c.root); err == nil {
		if st, err := os.Stat(sock); err == nil && st.Mode()&fs.ModeSocket != 0 {
			p.Socket = true
		}
	}
	return p, nil
}

// Start implements live.Controllers: `daokit controller --root ROOT` in a
// session of its own, so that closing the window (or its terminal) never
// stops work in flight. Its stderr goes to an unlinked temporary file
// that only the window can read, to say why if it exits. It never
// creates a ledger: the window asked for that before it opened.
//
// It starts none while a live process holds the root's lock (liveness's
// one rule), however long that holder has been silent: the child would
// either lose the lock and exit, or, where the holder's lease lapsed
// and it does not answer, kill it; neither is for an automatic start to
// decide. The *holderLiveError says who holds the root. A holder that
// is gone (a stale lock) gets its successor.
func (c *processControllers) Start(context.Context) (live.Process, error) {
	if ctl := liveness.ReadController(c.root, time.Now()); ctl.Live() {
		return nil, newHolderLiveError(c.loc, c.root, ctl)
	}
	out, err := os.CreateTemp("", "daokit-controller-*.out")
	if err != nil {
		return nil, fmt.Errorf("start controller: %w", err)
	}
	_ = os.Remove(out.Name())
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("start controller: %w", err)
	}
	defer devnull.Close()
	cmd := exec.Command(c.self, "controller", "--root", c.root, "--lang", c.loc.Lang())
	// Only stderr is kept: that is where the controller says why it
	// stops; stdout carries its ready line.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("start controller: %w", err)
	}
	return &childController{pid: cmd.Process.Pid, out: out, root: c.root}, nil
}

// childController is a controller the window started.
type childController struct {
	pid  int
	out  *os.File
	root string
}

// PID implements live.Process.
func (p *childController) PID() int { return p.pid }

// childPoll is how often Wait looks whether the child has exited. Polling
// (instead of a goroutine blocked in wait(2)) lets Wait return when the
// window closes while the controller runs on.
const childPoll = 250 * time.Millisecond

// Wait implements live.Process. It reaps the child when it exits.
func (p *childController) Wait(ctx context.Context) (live.Exit, error) {
	t := time.NewTicker(childPoll)
	defer t.Stop()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		switch {
		case err != nil && !errors.Is(err, syscall.EINTR):
			return live.Exit{Code: -1}, fmt.Errorf("wait controller %d: %w", p.pid, err)
		case pid == p.pid:
			e := live.Exit{Code: ws.ExitStatus(), Output: lastLine(p.out)}
			if ws.Signaled() {
				e.Code, e.Signal = -1, unix.SignalName(ws.Signal())
			} else if e.Code != 0 {
				// Its stderr names the problems of daokit.toml in the
				// language it started with; the window words them in its
				// own, every one of them.
				e.Config = configProblems(p.root)
			}
			_ = p.out.Close()
			return e, nil
		}
		select {
		case <-ctx.Done():
			return live.Exit{}, ctx.Err()
		case <-t.C:
		}
	}
}

// configProblems returns every problem of root's daokit.toml (none when
// it loads), each naming the file by its base name: the window shows
// them whole, and the full path would eat a banner line's width.
func configProblems(root string) []live.Problem {
	_, err := config.Load(root)
	es := config.AsErrors(err)
	out := make([]live.Problem, 0, len(es))
	for _, e := range es {
		short := *e
		if short.File != "" {
			short.File = filepath.Base(short.File)
		}
		out = append(out, &short)
	}
	return out
}

// lastLine returns the last non-blank line of what the child printed.
func lastLine(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	const tail = 4096
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	lines := bytes.Split(bytes.TrimSpace(buf), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}
