package attention

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Msg is the family of messages this package's commands return; the
// root hands every Msg back to the attention.
type Msg interface{ attentionMsg() }

// NotifiedMsg says how the notify command ended.
type NotifiedMsg struct {
	Err error
}

func (NotifiedMsg) attentionMsg() {}

var _ Msg = NotifiedMsg{}

// bel is the terminal bell. Bubble Tea v1 has no command for it, and the
// renderer only writes frames, so the bell goes to the terminal itself.
const bel = "\a"

// Bell rings the terminal bell on w.
func Bell(w io.Writer) tea.Cmd {
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		_, _ = io.WriteString(w, bel)
		return nil
	}
}

// osc2 and st frame a terminal title (OSC 2, ended by BEL as xterm and
// tmux accept).
const (
	osc2 = "\x1b]2;"
	st   = "\a"
)

// Title sets the terminal title on w. It goes to the terminal itself
// like the bell: the window paints its own frames (Bubble Tea's title
// command needs Bubble Tea's renderer).
func Title(w io.Writer, title string) tea.Cmd {
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		_, _ = io.WriteString(w, osc2+title+st)
		return nil
	}
}

// notifyTimeout bounds the notify command: a desktop notifier that hangs
// must not pile up.
const notifyTimeout = 10 * time.Second

// Vars fill the notify command's placeholders.
type Vars struct {
	Message, Task, Run, Need, Root string
}

// Argv returns the notify command with its placeholders replaced (the
// ones config.WindowPlaceholders lists).
func Argv(cmd []string, v Vars) []string {
	ph := func(name string) string { return "{" + name + "}" }
	r := strings.NewReplacer(ph("message"), v.Message, ph("task"), v.Task, ph("run"), v.Run, ph("need"), v.Need, ph("root"), v.Root)
	out := make([]string, len(cmd))
	for i, a := range cmd {
		out[i] = r.Replace(a)
	}
	return out
}

// Notify runs argv (already filled, see Argv) in a command, bounded by
// ctx and notifyTimeout. Its output is dropped: nothing may write to the
// terminal while the window runs.
func Notify(ctx context.Context, argv []string) tea.Cmd {
	if len(argv) == 0 {
		return nil
	}
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, notifyTimeout)
		defer cancel()
		cmd := exec.CommandContext(c, argv[0], argv[1:]...)
		if err := cmd.Run(); err != nil {
			return NotifiedMsg{Err: fmt.Errorf("notify %s: %w", argv[0], err)}
		}
		return NotifiedMsg{}
	}
}
