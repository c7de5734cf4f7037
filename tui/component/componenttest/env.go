// Package componenttest gives the window's component tests the Env they
// render with: the default theme without colour (golden files stay plain
// text, whatever terminal runs the tests), UTC, and a fixed clock.
package componenttest

import (
	"io"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/theme"
)

// Styles are the default theme rendered without colour.
func Styles() *theme.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return theme.NewStyles(r, theme.DefaultTheme(), theme.UnicodeGlyphs())
}

// Env is a component environment in lang with Styles, in UTC; a non-zero
// now fixes its clock there (the zero time keeps the real clock).
func Env(lang string, now time.Time) *component.Env {
	s := component.Settings{Zone: time.UTC}
	if !now.IsZero() {
		s.Now = func() time.Time { return now }
	}
	return component.NewEnv(i18n.MustNew(lang), Styles(), s)
}
