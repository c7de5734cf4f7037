// Package changes is the changes view: the files a step changed with
// their added and removed lines, and the colourised unified diff of one
// of them, scrolled by line. Its data comes from live.LoadChanges (git,
// in a command); it draws only the lines that fit, so a diff of any size
// opens in one frame.
package changes

import (
	"context"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/termsafe"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Model is the changes view.
type Model struct {
	component.Pane

	// src is the change the view reads: the current step's (current,
	// from the pipeline) or, while the window is focused on a task, that
	// task's (pinned); loaded is what files show.
	src, loaded, current live.ChangeSource
	pinned               bool
	// version is the pipeline's updated_at when src was read, so that a
	// visible view reloads once per change of the ledger, not per event.
	version string
	visible bool
	files   []gitwork.FileDiff
	err     error
	sel     int
	scroll  int
	// lines is the selected file's diff, flattened (hunk headers
	// included); built when the selection or the data changes.
	lines []line
}

// line is one drawn diff line.
type line struct {
	tone theme.Tone
	text string
}

var _ component.Component = (*Model)(nil)

// New returns an empty view.
func New(env *component.Env) *Model { return &Model{Pane: component.Pane{Env: env}} }

// SetVisible shows or hides the view; shown, it returns the command that
// reads the current step's change.
func (m *Model) SetVisible(ctx context.Context, v bool) tea.Cmd {
	m.visible = v
	m.SetFocused(v)
	if !v || !m.src.Valid() {
		return nil
	}
	return live.LoadChanges(ctx, m.src)
}

// Visible reports whether the view is shown.
func (m *Model) Visible() bool { return m.visible }

// HasChange reports whether the current step has a worktree to show.
func (m *Model) HasChange() bool { return m.src.Valid() }

// Update implements tea.Model. Reading git is the command's job
// (Refresh); Update only keeps what arrives.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
	case live.LedgerMsg:
		if s := msg.Update.Snapshot; s != nil && s.Pipeline.HasValue() {
			m.current = live.ChangeSourceOf(&s.Pipeline.Value)
			if !m.pinned {
				m.src = m.current
			}
		}
		return m, nil
	case live.ChangesMsg:
		keep := msg.Source == m.loaded
		m.loaded, m.files, m.err = msg.Source, msg.Files, msg.Err
		if !keep {
			m.sel, m.scroll = 0, 0
		}
		m.sel = min(m.sel, max(len(m.files)-1, 0))
		m.flatten()
	case tea.KeyMsg:
		if !m.visible || !m.key(msg) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.scroll = m.first()
	m.Memo.Invalidate()
	return m, nil
}

// Focus makes the view show src, a task's change, instead of the
// current step's (nil goes back to the current step's); shown, it
// returns the command that reads it.
func (m *Model) Focus(ctx context.Context, src *live.ChangeSource) tea.Cmd {
	m.pinned, m.src = src != nil, m.current
	if src != nil {
		m.src = *src
	}
	m.Memo.Invalidate()
	if !m.visible || !m.src.Valid() {
		return nil
	}
	return live.LoadChanges(ctx, m.src)
}

// Refresh returns the command that reads the change again when the view
// is shown and the ledger moved since the last read (version is the
// pipeline's updated_at).
func (m *Model) Refresh(ctx context.Context, version string) tea.Cmd {
	if !m.visible || !m.src.Valid() || version == m.version {
		return nil
	}
	m.version = version
	return live.LoadChanges(ctx, m.src)
}

// key handles the view's keys: lines and pages scroll the diff, the file
// keys choose the file.
func (m *Model) key(msg tea.KeyMsg) bool {
	k := m.Env.Keys
	page := max(m.diffRows()-1, 1)
	switch {
	case key.Matches(msg, k.NextFile):
		m.pick(m.sel + 1)
	case key.Matches(msg, k.PrevFile):
		m.pick(m.sel - 1)
	case key.Matches(msg, k.PageDown):
		m.scroll += page
	case key.Matches(msg, k.PageUp):
		m.scroll -= page
	default:
		return m.ScrollKey(msg, &m.scroll, len(m.lines))
	}
	return true
}

func (m *Model) pick(i int) {
	if len(m.files) == 0 {
		return
	}
	m.sel = (i + len(m.files)) % len(m.files)
	m.scroll = 0
	m.flatten()
}

// flatten builds the selected file's lines.
func (m *Model) flatten() {
	m.lines = m.lines[:0]
	if m.sel >= len(m.files) {
		return
	}
	f := m.files[m.sel]
	if f.Binary {
		m.lines = append(m.lines, line{theme.ToneMuted, m.Env.T("tui.changes.binary")})
		return
	}
	for _, h := range f.Hunks {
		m.lines = append(m.lines, line{theme.ToneSpecial, h.Header})
		for _, l := range h.Lines {
			tone := theme.ToneNeutral
			switch l.Kind {
			case gitwork.LineAdded:
				tone = theme.ToneOK
			case gitwork.LineRemoved:
				tone = theme.ToneBad
			case gitwork.LineNoNewEOL:
				tone = theme.ToneMuted
			}
			m.lines = append(m.lines, line{tone, string(l.Kind) + l.Text})
		}
	}
}

// listRows is how many rows the file list takes: all files up to a
// third of the view.
func (m *Model) listRows() int { return min(len(m.files), max((m.Height-1)/3, 1)) }

// diffRows is how many diff lines fit under the list and its rule.
func (m *Model) diffRows() int { return max(m.Height-1-m.listRows()-1, 0) }

// first is the first diff line shown, the scroll kept in range.
func (m *Model) first() int { return min(max(m.scroll, 0), max(len(m.lines)-m.diffRows(), 0)) }

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	env := m.Env
	added, removed := 0, 0
	for _, f := range m.files {
		added, removed = added+f.Added, removed+f.Removed
	}
	info := ""
	if len(m.files) > 0 {
		info = env.T("tui.changes.info", "Files", strconv.Itoa(len(m.files)), "Added", strconv.Itoa(added), "Removed", strconv.Itoa(removed))
	}
	return m.Frame("tui.pane.changes", info, false, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	w := m.Width - 1
	switch {
	case m.err != nil:
		return []string{" " + st.Paint(theme.ToneBad).Apply(text.Fit(env.T("tui.changes.error", "Error", env.Clean(m.err.Error())), w, env.Tail()))}
	case !m.loaded.Valid() && !m.src.Valid():
		return []string{" " + st.Muted.Render(text.Fit(env.T("tui.changes.none"), w, env.Tail()))}
	case len(m.files) == 0:
		return []string{" " + st.Muted.Render(text.Fit(env.T("tui.changes.empty"), w, env.Tail()))}
	}
	rows := m.listRows()
	lines := make([]string, 0, m.Height)
	top := min(max(m.sel-rows+1, 0), max(len(m.files)-rows, 0))
	for i := top; i < top+rows && i < len(m.files); i++ {
		f := m.files[i]
		mark := "  "
		if i == m.sel {
			mark = st.Glyphs.Cursor + " "
		}
		counts := " +" + strconv.Itoa(f.Added) + " -" + strconv.Itoa(f.Removed)
		if f.Binary {
			counts = " " + env.T("tui.changes.binary")
		}
		name := text.Fit(mark+env.Clean(f.Path()), max(w-text.Width(counts), 1), env.Tail())
		row := " " + name + st.Paint(theme.ToneOK).Apply(" +"+strconv.Itoa(f.Added)) + st.Paint(theme.ToneBad).Apply(" -"+strconv.Itoa(f.Removed))
		if f.Binary {
			row = " " + name + st.Muted.Render(counts)
		}
		if i == m.sel {
			row = st.Bold.Render(row)
		}
		lines = append(lines, row)
	}
	lines = append(lines, " "+st.Muted.Render(strings.Repeat(st.Glyphs.Rule, max(w-1, 0))))
	first := m.first()
	for i := first; i < first+m.diffRows() && i < len(m.lines); i++ {
		l := m.lines[i]
		lines = append(lines, " "+text.Fit(m.paintLine(l), w, env.Tail()))
	}
	return lines
}

// paintLine draws a diff line in its tone, with every control character
// and escape sequence of the file shown as a visible escape in the warning
// tone, so that it stands out from text that only looks like one. A
// carriage return is shown too (`\x0d`), as daokit diff shows it, not
// turned into a space as in the window's one-line texts: in a file it can
// hide the text before it.
func (m *Model) paintLine(l line) string {
	env, st := m.Env, m.Env.Styles
	s := strings.ReplaceAll(l.text, "\t", "    ")
	if termsafe.Clean(s) {
		return st.Paint(l.tone).Apply(env.Clean(s))
	}
	var b strings.Builder
	termsafe.Visit(s, false, func(part string, escaped bool) {
		if escaped {
			b.WriteString(st.Paint(theme.ToneWarn).Apply(part))
		} else {
			b.WriteString(st.Paint(l.tone).Apply(env.Clean(part)))
		}
	})
	return b.String()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Env.Keys
	return []key.Binding{k.PrevFile, k.NextFile, k.Up, k.Down, k.PageDown, k.Dismiss}
}

// FullHelp implements help.KeyMap. It lists every key the view acts
// on: the root gives the view exactly these.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.PrevFile, k.NextFile, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Dismiss}}
}
