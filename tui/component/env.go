package component

import (
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/keys"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Env is what every pane is built with: styles, keys, the language, and
// how wide the terminal draws ambiguous characters. It is read-only once
// built; a language switch builds a new one and sends it as an EnvMsg.
type Env struct {
	Styles *theme.Styles
	Keys   *keys.KeyMap
	Loc    *i18n.Localizer
	Labels *Labels
	// Wide reports that the terminal draws East Asian ambiguous
	// characters two cells wide (the person opted in): text taken from
	// the ledger is then cleaned of them before it is measured.
	Wide bool
	// ReadOnly is set for `daokit watch`: nothing is forwarded.
	ReadOnly bool
	// Zone is the time zone clock times are shown in; nil is local time.
	// Tests pin it so that golden files do not depend on the machine.
	Zone *time.Location
	// Now stamps what a pane records (a conversation entry). Panes call
	// it in Update only; ages drawn in View come from the clock tick.
	Now func() time.Time
}

// Settings are the parts of an Env that do not depend on the language.
type Settings struct {
	Wide     bool
	ReadOnly bool
	Zone     *time.Location
	Now      func() time.Time
}

// NewEnv builds the environment for one language.
func NewEnv(loc *i18n.Localizer, styles *theme.Styles, s Settings) *Env {
	return &Env{
		Styles:   styles,
		Keys:     keys.DefaultKeyMap(loc),
		Loc:      loc,
		Labels:   NewLabels(loc),
		Wide:     s.Wide,
		ReadOnly: s.ReadOnly,
		Zone:     s.Zone,
		Now:      s.Now,
	}
}

// WithLanguage returns a new environment like e in loc's language: the
// key map (whose help is translated) and the labels are rebuilt.
func (e *Env) WithLanguage(loc *i18n.Localizer) *Env {
	return NewEnv(loc, e.Styles, Settings{Wide: e.Wide, ReadOnly: e.ReadOnly, Zone: e.Zone, Now: e.Now})
}

// T renders a catalog message in the pane's language.
func (e *Env) T(id string, kv ...any) string { return e.Loc.T(id, kv...) }

// Clean makes ledger or worker text safe to draw on one line.
func (e *Env) Clean(s string) string { return text.Sanitize(s, e.Wide) }

// Tail is the ellipsis that ends truncated text.
func (e *Env) Tail() string { return e.Styles.Glyphs.Ellipsis }
