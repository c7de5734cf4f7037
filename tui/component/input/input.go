// Package input is where the person types: a text area in which Enter
// sends and Alt+Enter (or Shift+Enter, where the terminal reports it, or
// Ctrl+J) starts a new line, with a history of sent messages on Up and
// Down. In read-only mode (daokit watch) it only says that nothing is
// forwarded.
package input

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// MaxHistory bounds the remembered messages.
const MaxHistory = 200

// Model is the input pane.
type Model struct {
	component.Pane
	ta textarea.Model

	history []string // oldest first
	hist    int      // position while browsing history; len(history) when not
	draft   string   // what was typed before browsing history
	target  string   // where what is typed goes (TargetMsg), "" for the hint

	// held is a long text kept beside the text area (paste.go);
	// refused says the text arriving now was refused, until a key
	// that is not text.
	held    block
	refused bool
	// pending is typed text not yet in the text area; gen numbers its
	// flushes (paste.go).
	pending strings.Builder
	gen     int

	// keysTo names the view that has the keys instead of the message
	// box, and back the key that gives them back; the title says so.
	keysTo, back string
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
	_ component.Capturer  = (*Model)(nil)
	_ component.Typist    = (*Model)(nil)
)

// New returns an empty input.
func New(env *component.Env) *Model {
	m := &Model{Pane: component.Pane{Env: env}, ta: textarea.New()}
	m.ta.ShowLineNumbers = false
	m.ta.CharLimit = 64 << 10
	m.ta.Cursor.SetMode(cursor.CursorStatic)
	m.configure()
	return m
}

// configure applies the environment: styles, prompt, placeholder, keys.
func (m *Model) configure() {
	st := m.Env.Styles
	style := textarea.Style{
		Base:        st.Input.Text,
		CursorLine:  st.Input.Text,
		EndOfBuffer: st.Input.Placeholder,
		Placeholder: st.Input.Placeholder,
		Prompt:      st.Input.Prompt,
		Text:        st.Input.Text,
	}
	m.ta.FocusedStyle, m.ta.BlurredStyle = style, style
	m.ta.Cursor.Style = st.Input.Cursor
	first := st.Glyphs.Cursor + " "
	m.ta.SetPromptFunc(text.Width(first), func(line int) string {
		if line == 0 {
			return first
		}
		return "  "
	})
	m.ta.Placeholder = m.Env.T("tui.input.placeholder")
	km := textarea.DefaultKeyMap
	km.InsertNewline = m.Env.Keys.Newline
	// Up and Down browse history at the edges; inside a multi-line
	// message they move the cursor, which textarea does with these.
	km.LinePrevious = key.NewBinding(key.WithKeys("up"))
	km.LineNext = key.NewBinding(key.WithKeys("down"))
	m.ta.KeyMap = km
}

// SetSize implements component.Component: the title line, then the text
// area.
func (m *Model) SetSize(w, h int) {
	m.Pane.SetSize(w, h)
	m.ta.SetWidth(max(w, 4))
	m.fit()
}

// fit gives the text area the rows under the title and the held
// block's line.
func (m *Model) fit() {
	rows := m.Height - 1
	if m.Held() {
		rows--
	}
	m.ta.SetHeight(max(rows, 1))
	m.Memo.Invalidate()
}

// SetFocused implements component.Focuser. The text area takes the keys
// only while the pane has them, and never in read-only mode.
func (m *Model) SetFocused(f bool) {
	m.Pane.SetFocused(f)
	if f && !m.Env.ReadOnly {
		m.ta.Focus()
	} else {
		m.ta.Blur()
	}
}

// Captures implements component.Capturer: while the person types, keys
// such as "?" and "L" are text.
func (m *Model) Captures() bool { return m.Focused && !m.Env.ReadOnly }

// Typing implements component.Typist: the focused input takes text.
func (m *Model) Typing() bool { return m.Captures() }

// SetKeysTo says which view has the keys (its title) and the key that
// gives them back to the message box; "" when the message box has them.
func (m *Model) SetKeysTo(view, back string) {
	if view != m.keysTo || back != m.back {
		m.keysTo, m.back = view, back
		m.Memo.Invalidate()
	}
}

// Value returns the text typed so far, a held block included. Text still
// gathered for the text area is put there first.
func (m *Model) Value() string {
	m.flush()
	return m.value()
}

// SetValue replaces the text (to put back a message that failed); a
// long one is held as a block.
func (m *Model) SetValue(s string) {
	m.Memo.Invalidate()
	m.pending.Reset()
	m.held = block{}
	m.ta.Reset()
	if len(s) > InlineMax {
		m.held.add(s)
		m.fit()
		return
	}
	m.fit()
	m.ta.SetValue(s)
	m.ta.CursorEnd()
}

// pasteNewlines turns a paste's CR and CRLF line ends into new lines.
var pasteNewlines = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// SubmittedMsg is what the input tells the root when the person sends:
// the typed text, trimmed. The root decides what it is (an instruction,
// a command) and forwards it.
type SubmittedMsg struct {
	Text string
}

// submit takes the typed text for sending: it returns it trimmed,
// remembers it in the history and clears the area. Blank text gives "".
func (m *Model) submit() string {
	text := strings.TrimSpace(m.value())
	if text == "" {
		return ""
	}
	// A held block is not kept in the history, which is saved with the
	// window's memory.
	if n := len(m.history); len(text) <= InlineMax && (n == 0 || m.history[n-1] != text) {
		m.history = append(m.history, text)
		if len(m.history) > MaxHistory {
			m.history = m.history[len(m.history)-MaxHistory:]
		}
	}
	m.hist, m.draft = len(m.history), ""
	m.ta.Reset()
	m.held, m.refused = block{}, false
	m.fit()
	return text
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
		m.configure()
		m.Memo.Invalidate()
		return m, nil
	case RestoreMsg:
		m.restore(msg.History)
		return m, nil
	case TargetMsg:
		m.target = msg.Info
		m.Memo.Invalidate()
		return m, nil
	case FlushMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.flush()
	case tea.KeyMsg:
		if !m.Focused || m.Env.ReadOnly {
			return m, nil
		}
		return m, m.key(msg)
	}
	return m, nil
}

// key handles a key of the focused input. Text is gathered (or, pasted
// in one piece, put in at once), never matched against the text area's
// bindings: "alt+enter" typed is not a new line. Any other key puts the
// gathered text in first, so keys act in the order they came.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if component.IsText(msg) {
		s := string(msg.Runes)
		if s == "" && msg.Type == tea.KeySpace {
			s = " "
		}
		if !msg.Paste {
			return m.gather(s)
		}
		// Terminals paste line ends as CR (tmux's paste-buffer, most
		// terminal emulators): in a message they are new lines.
		s = pasteNewlines.Replace(s)
		flushed := m.flush()
		m.Memo.Invalidate()
		return tea.Batch(flushed, m.insert(s, true))
	}
	if key.Matches(msg, m.Env.Keys.Newline) {
		return m.gather("\n") // a new line is text, gathered with the rest
	}
	flushed := m.flush()
	m.Memo.Invalidate()
	m.refused = false
	if key.Matches(msg, m.Env.Keys.DropPaste) && m.dropHeld() {
		return flushed
	}
	if key.Matches(msg, m.Env.Keys.Send) {
		return tea.Batch(flushed, submitted(m.submit()))
	}
	if m.browse(msg) {
		return flushed
	}
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(msg)
	return tea.Batch(flushed, cmd)
}

// TargetMsg tells the input where what is typed goes, shown on its
// title line in place of the hint (a task it steers); "" shows the hint.
type TargetMsg struct {
	Info string
}

// RestoreMsg tells the input the history of the window's last run, to
// go before anything sent since it opened.
type RestoreMsg struct {
	History []string
}

// History returns the sent messages, oldest first, for saving.
func (m *Model) History() []string { return append([]string(nil), m.history...) }

// restore puts an earlier run's history before the current one.
func (m *Model) restore(h []string) {
	m.history = append(append([]string(nil), h...), m.history...)
	if len(m.history) > MaxHistory {
		m.history = m.history[len(m.history)-MaxHistory:]
	}
	m.hist, m.draft = len(m.history), m.ta.Value()
}

// submitted tells the root what was sent; blank text is not sent.
func submitted(text string) tea.Cmd {
	if text == "" {
		return nil
	}
	return func() tea.Msg { return SubmittedMsg{Text: text} }
}

// browse moves through the history when Up is pressed on the first line
// or Down on the last. It reports whether it used the key.
func (m *Model) browse(msg tea.KeyMsg) bool {
	k := m.Env.Keys
	if m.hist > len(m.history) {
		m.hist = len(m.history)
	}
	switch {
	case key.Matches(msg, k.HistoryPrev) && m.ta.Line() == 0 && m.hist > 0:
		if m.hist == len(m.history) {
			m.draft = m.ta.Value()
		}
		m.hist--
		m.SetValue(m.history[m.hist])
		return true
	case key.Matches(msg, k.HistoryNext) && m.ta.Line() == m.ta.LineCount()-1 && m.hist < len(m.history):
		m.hist++
		if m.hist == len(m.history) {
			m.SetValue(m.draft)
		} else {
			m.SetValue(m.history[m.hist])
		}
		return true
	}
	return false
}

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	env := m.Env
	if env.ReadOnly {
		body := []string{" " + env.Styles.Input.Disabled.Render(env.T("tui.input.readonly"))}
		return component.Frame(env, env.T("tui.pane.input"), "", false, m.Width, m.Height, body)
	}
	info := env.T("tui.input.hint")
	if m.target != "" {
		info = m.target
	}
	if m.keysTo != "" {
		info = env.T("keys.input.keys_to", "View", m.keysTo, "Key", m.back)
	}
	var body []string
	if m.Held() {
		bytes, lines := m.HeldSize()
		note := env.T("keys.input.held", "Size", component.Bytes(env, bytes), "Lines", strconv.Itoa(lines),
			"Key", env.Keys.DropPaste.Help().Key)
		body = append(body, " "+env.Styles.Input.Placeholder.Render(text.Fit(note, max(m.Width-2, 1), env.Tail())))
	}
	body = append(body, strings.Split(m.ta.View(), "\n")...)
	return component.Frame(env, env.T("tui.pane.input"), info, m.Focused, m.Width, m.Height, body)
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Env.Keys
	return []key.Binding{k.Send, k.Newline, k.HistoryPrev}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext}}
}
