package attention

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Terminal notifications: OSC 9 (iTerm2, WezTerm, Windows Terminal,
// kitty, foot, Ghostty) and OSC 777 (urxvt, foot, VTE terminals, WezTerm,
// Ghostty). A terminal that knows neither ignores both. They end with ST,
// not BEL: a BEL would ring where OSC is not understood.
const (
	osc9   = "\x1b]9;"
	osc777 = "\x1b]777;notify;"
	oscST  = "\x1b\\"
)

// appName is the application notify-send names (-a).
const appName = "daokit"

// DesktopMsg says how the built-in desktop notification (notify-send)
// ended; a failure is logged, not shown: nobody asked for it by name.
type DesktopMsg struct {
	Err error
}

func (DesktopMsg) attentionMsg() {}

var _ Msg = DesktopMsg{}

// oscText makes s safe inside an OSC string: no control characters (an
// ESC or BEL would end it early) and, for OSC 777, no ';' (its field
// separator).
func oscText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return ' '
		case r == ';':
			return ','
		}
		return r
	}, s)
}

// Notification returns the OSC 9 and OSC 777 sequences for title and
// body, wrapped for tmux's passthrough when tmux is set.
func Notification(title, body string, tmux bool) string {
	title, body = oscText(title), oscText(body)
	seqs := []string{osc9 + title + ": " + body + oscST, osc777 + title + ";" + body + oscST}
	if tmux {
		for i, s := range seqs {
			seqs[i] = "\x1bPtmux;" + strings.ReplaceAll(s, "\x1b", "\x1b\x1b") + "\x1b\\"
		}
	}
	return strings.Join(seqs, "")
}

// Desktop writes the terminal notifications to w, like the bell.
func Desktop(w io.Writer, title, body string, tmux bool) tea.Cmd {
	if w == nil {
		return nil
	}
	seq := Notification(title, body, tmux)
	return func() tea.Msg {
		_, _ = io.WriteString(w, seq)
		return nil
	}
}

// NotifySend runs notify-send (at path) with title and body, bounded by
// ctx and notifyTimeout.
func NotifySend(ctx context.Context, path, title, body string) tea.Cmd {
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, notifyTimeout)
		defer cancel()
		if err := exec.CommandContext(c, path, "-a", appName, title, body).Run(); err != nil {
			return DesktopMsg{Err: fmt.Errorf("notify-send: %w", err)}
		}
		return DesktopMsg{}
	}
}
