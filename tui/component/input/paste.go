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

// FlushGap is how long typed text waits before it reaches the text area;
// it equals the window's shortest gap between frames.
const FlushGap = 4 * time.Millisecond

// FlushMsg puts the gathered text in the text area.
type FlushMsg struct{ gen int }

// gather adds typed text s to what waits for the next flush, and returns
// the command that flushes it when it is the first.
func (m *Model) gather(s string) tea.Cmd {
	first := m.pending.Len() == 0
	m.pending.WriteString(s)
	if !first {
		return nil
	}
	m.gen++
	gen := m.gen
	return tea.Tick(FlushGap, func(time.Time) tea.Msg { return FlushMsg{gen: gen} })
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
