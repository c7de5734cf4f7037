package i18n

import (
	"embed"
	"fmt"
	"path"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/daokit/daokit/i18n/internal/catalog"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.toml
var locales embed.FS

var (
	bundleOnce sync.Once
	bundle     *goi18n.Bundle
	bundleErr  error
)

// loadBundle loads the catalogs once. It uses the generated catalog when
// that was made from exactly the embedded TOML files (the usual case: no
// TOML parsing at start-up), and parses the TOML otherwise, so that a
// catalog edited without `go generate ./i18n` still shows its new text. A
// broken catalog is a mistake the catalog tests catch; at run time it
// degrades to message ids instead of crashing.
func loadBundle() (*goi18n.Bundle, error) {
	bundleOnce.Do(func() {
		b := goi18n.NewBundle(language.English)
		files, err := catalog.Files(locales, "locales")
		if err != nil {
			bundleErr = err
			return
		}
		if digest, err := catalog.Digest(locales, files); err == nil && digest == generatedDigest {
			bundleErr = addGenerated(b)
		} else {
			bundleErr = parseTOML(b, files)
		}
		bundle = b
	})
	return bundle, bundleErr
}

func addGenerated(b *goi18n.Bundle) error {
	for lang, entries := range generatedCatalog {
		tag, err := language.Parse(lang)
		if err != nil {
			return err
		}
		msgs := make([]*goi18n.Message, len(entries))
		for i, e := range entries {
			msgs[i] = &goi18n.Message{ID: e[0], Other: e[1]}
		}
		if err := b.AddMessages(tag, msgs...); err != nil {
			return err
		}
	}
	return nil
}

func parseTOML(b *goi18n.Bundle, files []string) error {
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, name := range files {
		data, err := locales.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := b.ParseMessageFileBytes(data, path.Base(name)); err != nil {
			return fmt.Errorf("parse catalog %s: %w", name, err)
		}
	}
	return nil
}

// Localizer renders messages in one language. The zero value is not
// usable; build one with New. A Localizer is safe for concurrent use.
type Localizer struct {
	lang     string
	loc      *goi18n.Localizer
	fallback *goi18n.Localizer
}

// New returns a Localizer for one of the Supported languages. An unknown
// language is an *UnknownLanguageError.
func New(lang string) (*Localizer, error) {
	resolved, ok := matchLocale(lang)
	if !ok {
		return nil, &UnknownLanguageError{Source: "language", Value: lang}
	}
	b, err := loadBundle()
	if err != nil {
		return nil, err
	}
	return &Localizer{
		lang:     resolved,
		loc:      goi18n.NewLocalizer(b, resolved),
		fallback: goi18n.NewLocalizer(b, English),
	}, nil
}

// MustNew is New for a language known to be supported (a constant such as
// English); it falls back to an English localizer if the catalogs are broken.
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
// chosen language falls back to English, then to the id itself, so a gap
// in a catalog never hides the rest of the screen.
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
	if l.loc != nil {
		if s, err := l.loc.Localize(cfg); err == nil {
			return s
		}
	}
	if l.fallback != nil {
		if s, err := l.fallback.Localize(cfg); err == nil {
			return s
		}
	}
	return id
}
