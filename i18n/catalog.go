package i18n

import (
	"sort"
	"strings"
	"sync"
	"text/template"
)

// Localizer renders messages in one language. The zero value is not
// usable; build one with New. A Localizer is safe for concurrent use.
//
// Start-up matters more than anything here, since every command pays it:
// the catalogs are Go data generated from the TOML files (catalog_gen.go,
// checked against them by a test, not at start), only the language in
// use is consulted, and a message is parsed as a template the first time
// it is rendered, never before.
type Localizer struct {
	lang  string
	msgs  [][2]string // id, text; sorted by id
	tmpls sync.Map    // id → *template.Template, parsed on first use
}

// New returns a Localizer for one of the Supported languages. An unknown
// language is an *UnknownLanguageError.
func New(lang string) (*Localizer, error) {
	resolved, ok := matchLocale(lang)
	if !ok {
		return nil, &UnknownLanguageError{Source: "language", Value: lang}
	}
	return &Localizer{lang: resolved, msgs: generatedCatalog(resolved)}, nil
}

// MustNew is New for a language known to be supported (a constant such as
// English); it falls back to English for any other.
func MustNew(lang string) *Localizer {
	l, err := New(lang)
	if err != nil {
		return &Localizer{lang: English, msgs: generatedCatalog(English)}
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
	text, ok := lookup(l.msgs, id)
	if !ok {
		if text, ok = lookup(generatedCatalog(English), id); !ok {
			return id
		}
	}
	if !strings.Contains(text, "{{") {
		return text
	}
	t, err := l.template(id, text)
	if err != nil {
		return text
	}
	data := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		name, _ := kv[i].(string)
		data[name] = kv[i+1]
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return text
	}
	return b.String()
}

// template returns the parsed form of message id, parsing it once.
func (l *Localizer) template(id, text string) (*template.Template, error) {
	if t, ok := l.tmpls.Load(id); ok {
		return t.(*template.Template), nil
	}
	t, err := template.New(id).Parse(text)
	if err != nil {
		return nil, err
	}
	l.tmpls.Store(id, t)
	return t, nil
}

// lookup finds id in msgs, which is sorted by id.
func lookup(msgs [][2]string, id string) (string, bool) {
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i][0] >= id })
	if i < len(msgs) && msgs[i][0] == id {
		return msgs[i][1], true
	}
	return "", false
}
