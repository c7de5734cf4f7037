package input

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A long text is held as one block beside the text area, not in it: the
// text area re-wraps everything it holds on every key and frame, which
// made a 130 KB paste, arriving as thousands of messages without
// bracketed paste, take minutes. The block is shown as one line (its
// size), sent whole with what is typed after it, and dropped with
// Backspace in an empty text area.

// Text that arrives key by key is gathered and put in the text area at
// most once per FlushGap (and before any other key): a paste without
// bracketed paste arrives as thousands of messages, and the text area
// costs time in proportion to what it holds on every insert and frame.
//
// A second chain of ticks tells a paste from typing. Without bracketed
// paste a pasted line end arrives as Enter (CR) and a tab as Tab, the
// keys that send and move the focus. A person cannot type a key within a
// few milliseconds of the last one; a paste's keys come from one read,
// back to back. So while text arrived in the current quiet tick or the
// one before (at most two FlushGaps ago; a long burst may pause longer,
// see LongQuiet) the input is in a paste (Pasting), and an Enter or Tab
// then is held (Hold), not acted on. Text after it makes it part of the
// message, a new line or a tab; when the burst ends with it (a sentence
// typed by a program and its Enter, a paste that ends with a line end)
// it is given back (ReleasedMsg) and acts as the key it is, so the paste
// is sent whole. The quiet ticks flush nothing, so that the text area,
// costly to redraw, is filled as seldom as before.

// FlushGap is how long typed text waits before it reaches the text area;
// it equals the window's shortest gap between frames.
const FlushGap = 4 * time.Millisecond

// FlushMsg puts the gathered text in the text area, or (quiet) checks
// whether text still arrives.
type FlushMsg struct {
	gen   int
	quiet bool
}

// gather adds typed text s to what waits for the next flush, after the
// keys held before it (which it makes text), and returns the commands of
// the ticks not on their way yet.
func (m *Model) gather(s string) tea.Cmd {
	first := m.pending.Len() == 0
	m.pending.WriteString(m.heldText())
	m.pending.WriteString(s)
	m.typed = true
	m.burst += len(s)
	var cmds []tea.Cmd
	if first {
		m.gen++
		cmds = append(cmds, tick(FlushMsg{gen: m.gen}))
	}
	if !m.watching {
		m.watching = true
		m.quietGen++
		cmds = append(cmds, tick(FlushMsg{gen: m.quietGen, quiet: true}))
	}
	return tea.Batch(cmds...)
}

func tick(msg FlushMsg) tea.Cmd {
	return tea.Tick(FlushGap, func(time.Time) tea.Msg { return msg })
}

// onFlushMsg handles a tick of either chain; a stale one does nothing.
func (m *Model) onFlushMsg(msg FlushMsg) tea.Cmd {
	switch {
	case msg.quiet && msg.gen == m.quietGen:
		return m.onQuiet()
	case !msg.quiet && msg.gen == m.gen:
		return m.flush()
	}
	return nil
}

// A long burst may pause longer than a short one: the terminal and the
// program feeding it (tmux's paste-buffer) write a long paste in pieces,
// and on a loaded machine a piece can come tens of milliseconds after the
// last. After LongBurst bytes the burst ends only after LongQuiet without
// text; a person's Enter after a long paste is not that quick, and a
// program's is only delayed by it.
const (
	LongBurst = 256
	LongQuiet = 100 * time.Millisecond
)

// onQuiet keeps watching while text arrived in the quiet tick that
// ends, or the burst may still go on: what arrives next is still the
// same burst. A burst that ended gives back the keys held at its end.
func (m *Model) onQuiet() tea.Cmd {
	if m.typed {
		m.typed, m.recent, m.quiet = false, true, 0
		return tick(FlushMsg{gen: m.quietGen, quiet: true})
	}
	m.quiet++
	if m.burst >= LongBurst && time.Duration(m.quiet)*FlushGap < LongQuiet {
		return tick(FlushMsg{gen: m.quietGen, quiet: true})
	}
	m.recent, m.watching, m.burst, m.quiet = false, false, 0, 0
	if keys := m.Release(); len(keys) > 0 {
		// The text before them reaches the text area first.
		return tea.Batch(m.flush(), func() tea.Msg { return ReleasedMsg{Keys: keys} })
	}
	return nil
}

// Pasting reports whether text is arriving faster than anyone types: in
// this quiet tick, or in a burst not yet ended (see the top of this
// file).
func (m *Model) Pasting() bool { return m.typed || m.recent }

// Hold keeps an Enter or Tab that arrives amid a paste (see the top of
// this file) and reports whether it did; the root then does nothing
// with it.
func (m *Model) Hold(msg tea.KeyMsg) bool {
	if msg.Alt || msg.Paste || !m.Typing() || !m.Pasting() {
		return false
	}
	if msg.Type != tea.KeyEnter && msg.Type != tea.KeyTab {
		return false
	}
	m.heldKeys = append(m.heldKeys, msg)
	return true
}

// Release returns the keys held and forgets them, for the root to act
// on: the burst ended with them, or another key came after them.
func (m *Model) Release() []tea.KeyMsg {
	keys := m.heldKeys
	m.heldKeys = nil
	return keys
}

// ReleasedMsg gives back the Enter and Tab keys held at the end of a
// burst of text: they were not part of a paste, and the root acts on
// them in order as the keys they are.
type ReleasedMsg struct {
	Keys []tea.KeyMsg
}

// heldText returns the held keys as the text they stand for in a paste
// (a line end, a tab) and forgets them.
func (m *Model) heldText() string {
	if len(m.heldKeys) == 0 {
		return ""
	}
	var b strings.Builder
	for _, k := range m.Release() {
		if k.Type == tea.KeyTab {
			b.WriteByte('\t')
		} else {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// flush puts the gathered text in the text area (or the block).
func (m *Model) flush() tea.Cmd {
	if m.pending.Len() == 0 {
		return nil
	}
	s := m.pending.String()
	m.pending.Reset()
	m.Memo.Invalidate()
	return m.insert(s, false)
}

// Empty reports whether the message box holds nothing at all.
func (m *Model) Empty() bool { return m.pending.Len() == 0 && !m.Held() && m.ta.Value() == "" }

// InlineMax is the most text the text area holds; past it, what it holds
// moves into the block.
const InlineMax = 8 << 10

// MaxMessage is the most one message may hold, in bytes: a larger paste
// is refused with RefusedMsg. The relay carries a message as one line of
// at most 1 MiB (relay.DefaultMaxLine) once quoted for JSON, which can
// nearly double a text full of quotes and newlines.
const MaxMessage = 512 << 10

// RefusedMsg tells the root that text was too large for a message and
// was not added: Size bytes arrived (at least), Max is the cap.
type RefusedMsg struct {
	Size, Max int
	// Dropped says the block held before was dropped with it: the text
	// arrived in pieces (no bracketed paste), so it could not be told
	// from what came before.
	Dropped bool
}

// block is the held text.
type block struct {
	b     strings.Builder
	lines int
}

func (b *block) add(s string) {
	b.b.WriteString(s)
	b.lines += strings.Count(s, "\n")
}

// Held reports whether a text is held as a block.
func (m *Model) Held() bool { return m.held.b.Len() > 0 }

// HeldSize returns the size of the held block in bytes and lines.
func (m *Model) HeldSize() (bytes, lines int) { return m.held.b.Len(), m.held.lines + 1 }

// insert adds typed or pasted text s at the cursor, or to the held block
// once the text is long; too large a text is refused whole.
func (m *Model) insert(s string, paste bool) tea.Cmd {
	size := m.held.b.Len() + len(m.ta.Value()) + len(s)
	switch {
	case size > MaxMessage && m.refused:
		return nil // the rest of a text already refused
	case size > MaxMessage:
		m.refused = true
		dropped := !paste && m.Held()
		if dropped {
			m.held = block{}
			m.ta.Reset()
		}
		r := RefusedMsg{Size: size, Max: MaxMessage, Dropped: dropped}
		return func() tea.Msg { return r }
	case !m.Held() && size <= InlineMax:
		m.ta.InsertString(s)
		return nil
	}
	if !m.Held() || len(m.ta.Value())+len(s) > InlineMax {
		m.held.add(m.ta.Value())
		m.held.add(s)
		m.ta.Reset()
		m.fit()
		return nil
	}
	m.ta.InsertString(s)
	return nil
}

// dropHeld drops the held block, for Backspace in an empty text area;
// it reports whether there was one.
func (m *Model) dropHeld() bool {
	if !m.Held() || m.ta.Value() != "" {
		return false
	}
	m.held = block{}
	m.fit()
	return true
}

// value is the whole message: the block, then the text area.
func (m *Model) value() string {
	if !m.Held() {
		return m.ta.Value()
	}
	return m.held.b.String() + m.ta.Value()
}
