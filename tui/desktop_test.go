package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/live"
)

// TestDesktopNotificationReachesThePerson: a run that becomes BLOCKED
// sends OSC 9 and OSC 777 notifications with the banner's words and runs
// notify-send (here a script standing in for it) beside the bell; with
// desktop off, none of them.
func TestDesktopNotificationReachesThePerson(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		dir := t.TempDir()
		out := filepath.Join(dir, "notify-send.args")
		send := filepath.Join(dir, "notify-send")
		if err := os.WriteFile(send, []byte("#!/bin/sh\nprintf '%s|' \"$@\" > "+out+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		term := &bellTerm{}
		opts := testOptions("en")
		opts.Terminal = term
		cfg := attention.DefaultConfig()
		cfg.Desktop, cfg.NotifySend = on, send
		opts.Attention = &cfg
		opts.Feed = nil // the command runs under the window's life: this one lives
		ctx, cancel := context.WithCancel(context.Background())
		m := New(ctx, opts)
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 0))
		_, cmd := m.Update(live.LedgerMsg{Update: pipelineAt(ledger.StatusBlocked, "await_user", time.Minute,
			runState("failed", "RESTART_LIMIT_REACHED"))})
		runQuick(m, cmd)
		cancel()
		written := term.out.String()
		args, err := os.ReadFile(out)
		if !on {
			if strings.Contains(written, "\x1b]9;") || strings.Contains(written, "\x1b]777;") || err == nil {
				t.Errorf("desktop off: terminal got %q, notify-send ran: %v", written, err == nil)
			}
			if term.bells() != 1 {
				t.Errorf("desktop off took the bell away: %d bells", term.bells())
			}
			continue
		}
		for _, want := range []string{"\x1b]9;daokit · needs you: DK-1A2B3C4D is blocked", "\x1b]777;notify;daokit · needs you;DK-1A2B3C4D is blocked"} {
			if !strings.Contains(written, want) {
				t.Errorf("terminal lacks %q in %q", want, written)
			}
		}
		if err != nil || !strings.HasPrefix(string(args), "-a|daokit|daokit · needs you|DK-1A2B3C4D is blocked") {
			t.Errorf("notify-send got %q (%v)", args, err)
		}
	}
}

// TestNotificationTextCannotEndItsSequence: a control character or ';'
// in the text cannot end the OSC early; inside tmux the sequences go
// through its passthrough.
func TestNotificationTextCannotEndItsSequence(t *testing.T) {
	t.Parallel()
	s := attention.Notification("daokit", "a\x1b]2;evil\a;b\nc", false)
	if strings.Count(s, "\x1b") != 4 || strings.Contains(s, "\a") || strings.Contains(s, ";b") {
		t.Errorf("sequence %q", s)
	}
	if tm := attention.Notification("daokit", "x", true); !strings.HasPrefix(tm, "\x1bPtmux;\x1b\x1b]9;") {
		t.Errorf("tmux sequence %q", tm)
	}
}

// TestTitleIsResetOnQuit: the needs-you title set while a run was
// blocked is cleared when the person quits.
func TestTitleIsResetOnQuit(t *testing.T) {
	t.Parallel()
	term := &bellTerm{}
	opts := testOptions("en")
	opts.Terminal = term
	m := newTestModel(t, opts, 160, 48)
	feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 0))
	feed(m, pipelineAt(ledger.StatusBlocked, "await_user", time.Minute, runState("failed", "RESTART_LIMIT_REACHED")))
	if got := term.titles(); len(got) != 1 || got[0] != "daokit · needs you" {
		t.Fatalf("titles %q before quitting", got)
	}
	if !sendQuits(m, keyMsg("ctrl+c")) {
		t.Fatal("ctrl+c did not quit")
	}
	if got := term.titles(); len(got) != 2 || got[1] != "" {
		t.Errorf("titles %q: the last is not the reset", got)
	}
	if m.titleLeft() {
		t.Error("the window still counts a title it left")
	}
}
