package theme

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Styles holds every style the window draws with, nested by screen area.
// Build it once with NewStyles and pass the pointer down; View code only
// picks styles from here and never names a colour.
type Styles struct {
	Glyphs Glyphs

	Text  lipgloss.Style
	Muted lipgloss.Style
	Bold  lipgloss.Style

	Pane struct {
		Title        lipgloss.Style // title of an unfocused pane
		TitleFocused lipgloss.Style // title of the focused pane
		Rule         lipgloss.Style // the rest of the title line
		Info         lipgloss.Style // right-hand figures on the title line
	}

	// Tone styles a stored value by how good or bad it is; see Tone.
	Tone   map[Tone]lipgloss.Style
	paints map[Tone]Paint
	// MutedPaint and TextPaint are Muted and Text as paints.
	MutedPaint, TextPaint Paint
	// PanePaint are the pane title styles as paints: every pane draws a
	// title on every redraw.
	PanePaint struct{ Title, TitleFocused, Rule, Info, Header Paint }

	Route struct {
		Key   lipgloss.Style
		Value lipgloss.Style
		Sep   lipgloss.Style
	}

	Status struct {
		Bar   lipgloss.Style
		Key   lipgloss.Style
		Value lipgloss.Style
	}

	Banner struct {
		Error lipgloss.Style
		Warn  lipgloss.Style
		Info  lipgloss.Style
	}

	Conversation struct {
		User       lipgloss.Style
		Controller lipgloss.Style
		Error      lipgloss.Style
		System     lipgloss.Style
		Worker     lipgloss.Style
		Time       lipgloss.Style
	}

	Table struct {
		Header   lipgloss.Style
		Selected lipgloss.Style
	}

	Input struct {
		Prompt      lipgloss.Style
		Text        lipgloss.Style
		Placeholder lipgloss.Style
		Cursor      lipgloss.Style
		Disabled    lipgloss.Style
	}

	Help struct {
		Key  lipgloss.Style
		Desc lipgloss.Style
		Sep  lipgloss.Style
	}
}

// Tone is how a status reads at a glance.
type Tone int

// Tones, from neutral to alarming.
const (
	ToneNeutral Tone = iota
	ToneMuted
	ToneOK
	ToneProgress
	ToneWarn
	ToneBad
	ToneSpecial
)

// NewStyles builds the styles of th for renderer r (its colour profile
// decides what escape codes come out; tests pin it to ASCII) with glyph
// set g.
func NewStyles(r *lipgloss.Renderer, th Theme, g Glyphs) *Styles {
	s := &Styles{Glyphs: g}
	n := r.NewStyle
	s.Text = n().Foreground(th.Text)
	s.Muted = n().Foreground(th.Muted)
	s.Bold = n().Bold(true)

	s.Pane.Title = n().Foreground(th.Text).Bold(true)
	s.Pane.TitleFocused = n().Foreground(th.Accent).Bold(true)
	s.Pane.Rule = n().Foreground(th.Muted)
	s.Pane.Info = n().Foreground(th.Muted)

	s.Tone = map[Tone]lipgloss.Style{
		ToneNeutral:  n().Foreground(th.Text),
		ToneMuted:    n().Foreground(th.Muted),
		ToneOK:       n().Foreground(th.OK).Bold(true),
		ToneProgress: n().Foreground(th.Progress).Bold(true),
		ToneWarn:     n().Foreground(th.Warn).Bold(true),
		ToneBad:      n().Foreground(th.Bad).Bold(true),
		ToneSpecial:  n().Foreground(th.Special).Bold(true),
	}

	s.paints = make(map[Tone]Paint, len(s.Tone))
	for t, st := range s.Tone {
		s.paints[t] = NewPaint(st)
	}
	s.MutedPaint, s.TextPaint = NewPaint(s.Muted), NewPaint(s.Text)

	s.Route.Key = n().Foreground(th.Muted)
	s.Route.Value = n().Foreground(th.Text).Bold(true)
	s.Route.Sep = n().Foreground(th.Muted)

	s.Status.Bar = n().Foreground(th.Muted)
	s.Status.Key = n().Foreground(th.Muted)
	s.Status.Value = n().Foreground(th.Text)

	s.Banner.Error = n().Foreground(th.Bad).Background(th.BannerBg).Bold(true)
	s.Banner.Warn = n().Foreground(th.Warn).Bold(true)
	s.Banner.Info = n().Foreground(th.Progress)

	s.Conversation.User = n().Foreground(th.User).Bold(true)
	s.Conversation.Controller = n().Foreground(th.OK)
	s.Conversation.Error = n().Foreground(th.Bad)
	s.Conversation.System = n().Foreground(th.Muted)
	s.Conversation.Worker = n().Foreground(th.Muted)
	s.Conversation.Time = n().Foreground(th.Muted)

	s.Table.Header = n().Foreground(th.Muted).Bold(true)
	s.Table.Selected = n().Background(th.Selection)

	s.PanePaint.Title = NewPaint(s.Pane.Title)
	s.PanePaint.TitleFocused = NewPaint(s.Pane.TitleFocused)
	s.PanePaint.Rule = NewPaint(s.Pane.Rule)
	s.PanePaint.Info = NewPaint(s.Pane.Info)
	s.PanePaint.Header = NewPaint(s.Table.Header)

	s.Input.Prompt = n().Foreground(th.Accent).Bold(true)
	s.Input.Text = n().Foreground(th.Text)
	s.Input.Placeholder = n().Foreground(th.Muted)
	s.Input.Cursor = n().Foreground(th.Accent)
	s.Input.Disabled = n().Foreground(th.Muted)

	s.Help.Key = n().Foreground(th.Accent)
	s.Help.Desc = n().Foreground(th.Muted)
	s.Help.Sep = n().Foreground(th.Muted)
	return s
}

// ToneStyle returns the style of tone t.
func (s *Styles) ToneStyle(t Tone) lipgloss.Style { return s.Tone[t] }

// Paint is a style reduced to the escape codes around its text, for the
// hot paths (thousands of event cells) where lipgloss's Render, which
// handles borders, padding and wrapping, costs more than the text. It is
// only built from styles that set colours and attributes.
type Paint struct{ pre, post string }

// paintSentinel is a private-use character that no style changes.
const paintSentinel = ""

// NewPaint captures the escape codes st puts around text.
func NewPaint(st lipgloss.Style) Paint {
	out := st.Render(paintSentinel)
	pre, post, ok := strings.Cut(out, paintSentinel)
	if !ok {
		return Paint{}
	}
	return Paint{pre: pre, post: post}
}

// Apply paints s.
func (p Paint) Apply(s string) string {
	if p.pre == "" && p.post == "" {
		return s
	}
	return p.pre + s + p.post
}

// Paint returns the paint of tone t.
func (s *Styles) Paint(t Tone) Paint { return s.paints[t] }
