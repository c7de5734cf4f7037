package i18n

import (
	"slices"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Localizer renders messages in one language. The zero value is not
// usable; build one with New. A Localizer is safe for concurrent use.
//
// go-i18n renders the messages (templates, plural forms). Start-up still matters more than anything here,
// since every command pays it: the messages are Go data generated from the
// TOML files (one catalog_<area>_gen.go per area, checked against them by a test,
// not at start), a go-i18n bundle holds the language in use only and is built the
// first time a message of that language is rendered, and a message joins
// the bundle (and go-i18n parses its template) the first time it is
// rendered.
type Localizer struct {
	lang string
}

// New returns a Localizer for one of the Supported languages. An unknown
// language is an *UnknownLanguageError.
func New(lang string) (*Localizer, error) {
	resolved, ok := matchLocale(lang)
	if !ok {
		return nil, &UnknownLanguageError{Source: "language", Value: lang}
	}
	return &Localizer{lang: resolved}, nil
}

// MustNew is New for a language known to be supported (a constant such as
// English); it falls back to English for any other.
func MustNew(lang string) *Localizer {
	l, err := New(lang)
	if err != nil {
		return &Localizer{lang: English}
	}
	return l
}

// Lang returns the language tag this Localizer renders, e.g. "zh-CN".
func (l *Localizer) Lang() string { return l.lang }

// T renders message id with template data given as alternating name/value
// pairs: T("cli.init.created", "Path", p). A message missing from the
// chosen language (or failing to render) falls back to English, then to
// the id itself, so a gap in a catalog never hides the rest of the screen.
// The catalogs carry the same ids (a test checks it), so the English
// bundle is built for another language only when such a gap is hit.
func (l *Localizer) T(id string, kv ...any) string {
	var data map[string]any
	if len(kv) > 0 {
		data = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			name, _ := kv[i].(string)
			data[name] = kv[i+1]
		}
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data}
	if s, err := localizer(l.lang).Localize(cfg); err == nil {
		return s
	}
	if l.lang != English {
		if s, err := localizer(English).Localize(cfg); err == nil {
			return s
		}
	}
	return id
}

// lazyLocalizer is the go-i18n localizer of one language. Its bundle is
// built on first use and holds the messages rendered so far: go-i18n
// wraps every message it is given (a template and a map each), and a
// command renders a few dozen of a catalog's hundreds, so adding them all
// up front would cost more than the rest of start-up. A message is added
// the first time it is asked for, found by binary search in each area of
// the generated catalog, each sorted by id.
type lazyLocalizer struct {
	once   sync.Once
	tag    language.Tag
	msgs   [][]*goi18n.Message // the generated catalog of the language, by area
	bundle *goi18n.Bundle
	loc    *goi18n.Localizer
	// mu guards bundle and added: go-i18n bundles may not be modified
	// while a localizer reads them, and messages are added as they are
	// used.
	mu    sync.RWMutex
	added map[string]struct{} // ids in bundle
}

// localizers holds one entry per Supported language, in that order.
var localizers [2]lazyLocalizer

// localizer returns the lazy go-i18n localizer of a supported language.
func localizer(lang string) *lazyLocalizer {
	e := &localizers[0]
	if lang == Chinese {
		e = &localizers[1]
	}
	e.once.Do(func() {
		// The bundle's default language is lang itself, so that
		// nothing else is loaded: a missing message is a
		// *goi18n.MessageNotFoundErr, which T turns into the English text.
		e.tag = language.Make(lang)
		e.msgs = generatedAreas(lang)
		e.bundle = goi18n.NewBundle(e.tag)
		e.loc = goi18n.NewLocalizer(e.bundle, lang)
		e.added = map[string]struct{}{}
	})
	return e
}

// Localize renders cfg with go-i18n, first adding the message to the
// bundle if this is its first use.
func (e *lazyLocalizer) Localize(cfg *goi18n.LocalizeConfig) (string, error) {
	e.mu.RLock()
	_, ok := e.added[cfg.MessageID]
	if ok {
		defer e.mu.RUnlock()
		return e.loc.Localize(cfg)
	}
	e.mu.RUnlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.added[cfg.MessageID]; !ok {
		m := find(e.msgs, cfg.MessageID)
		// AddMessages fails only for a language without plural rules;
		// en and zh have them (a test renders both). Were it to fail,
		// the message stays missing: English shows, then the id.
		if m != nil && e.bundle.AddMessages(e.tag, m) == nil {
			e.added[cfg.MessageID] = struct{}{}
		}
	}
	return e.loc.Localize(cfg)
}

// Has reports whether l's own catalog holds message id, without the
// English fallback of T: a test of a vocabulary uses it to tell a label
// missing from one language from one that reads the same in both.
func (l *Localizer) Has(id string) bool {
	return find(generatedAreas(l.lang), id) != nil
}

// find looks id up in every area: a message is looked up once per
// process, when it is first rendered, so a search per area (about 20
// of them, a few microseconds) costs less than merging the areas at
// start-up would.
func find(areas [][]*goi18n.Message, id string) *goi18n.Message {
	for _, msgs := range areas {
		if len(msgs) == 0 || id < msgs[0].ID || id > msgs[len(msgs)-1].ID {
			continue
		}
		if i, ok := slices.BinarySearchFunc(msgs, id, func(m *goi18n.Message, id string) int {
			return strings.Compare(m.ID, id)
		}); ok {
			return msgs[i]
		}
	}
	return nil
}
