package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"slices"
	"unicode/utf8"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

//go:embed assets
var assets embed.FS

// payloadCap is how much of an event's payload the table shows: enough
// to recognise it, short enough that a 9 MiB event keeps the page light.
const payloadCap = 300

func parseTemplates() (*template.Template, error) {
	return template.New("dashboard").Funcs(template.FuncMap{"unixMilli": unixMilli, "word": word}).ParseFS(assets, "assets/page.html")
}

// payloadText is an event's payload as compact JSON, cut at payloadCap
// characters.
func payloadText(p ledger.Object) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the template escapes; \u003c would only hide a '<'
	if err := enc.Encode(p); err != nil || buf.String() == "null\n" {
		return "{}"
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if utf8.RuneCount(b) <= payloadCap {
		return string(b)
	}
	r := []rune(string(b))
	return string(r[:payloadCap]) + "…"
}

// unixMilli is a ledger timestamp in Unix milliseconds, for the page's
// script to count the heartbeat's age between ledger changes (0 when the
// timestamp is null or unreadable).
func unixMilli(ts string) int64 {
	t, err := ledger.ParseTime(ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// pageData is what the templates render: one state, in one language.
type pageData struct {
	L        *i18n.Localizer
	Lang     string
	Root     string
	ReadOnly bool
	State    *State
	Langs    []langLink
	token    string
}

// langLink switches the page to another language.
type langLink struct {
	Tag, Name, URL string
	Current        bool
}

// docData is one document's problems, for the "doc" template.
type docData struct {
	L      *i18n.Localizer
	File   string
	Err    error
	Schema error
	Stale  bool
}

// Doc bundles a document's problems for the "doc" template.
func (d pageData) Doc(file string, err, schema error, stale bool) docData {
	return docData{L: d.L, File: file, Err: err, Schema: schema, Stale: stale}
}

// NewestFirst lists the events the newest first, as a reader scans them.
func (d pageData) NewestFirst() []Event {
	ev := slices.Clone(d.State.Events)
	slices.Reverse(ev)
	return ev
}

// link is a path of the server with the token and the page's language.
func (d pageData) link(p string) string {
	q := url.Values{"token": {d.token}, "lang": {d.Lang}}
	return p + "?" + q.Encode()
}

// EventsURL is the page's stream.
func (d pageData) EventsURL() string { return d.link("/events") }

// SendURL is where the form posts.
func (d pageData) SendURL() string { return d.link("/send") }

// AssetURL is an embedded asset's address.
func (d pageData) AssetURL(name string) string { return d.link("/static/" + name) }

// data returns the page of st for r's language.
func (s *Server) data(r *http.Request, st *State) pageData {
	l := s.localizer(r)
	d := pageData{L: l, Lang: l.Lang(), Root: st.Snapshot.Root, ReadOnly: s.o.ReadOnly, State: st, token: s.o.Token}
	for _, tag := range i18n.Supported() {
		q := url.Values{"token": {s.o.Token}, "lang": {tag}}
		d.Langs = append(d.Langs, langLink{Tag: tag, Name: l.T("dashboard.lang." + tag), URL: "/?" + q.Encode(), Current: tag == d.Lang})
	}
	return d
}

// servePage renders the whole page with the newest state, so that it
// reads right before (or without) its script.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	st, err := s.hub.current(r.Context())
	if err != nil {
		return // the browser went away or the server is stopping
	}
	var buf bytes.Buffer
	if err := s.page.ExecuteTemplate(&buf, "page", s.data(r, st)); err != nil {
		s.o.Logger.Error("render page", "err", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// assetTypes are the embedded files the page loads, with their types.
var assetTypes = map[string]string{
	"app.js":    "text/javascript; charset=utf-8",
	"style.css": "text/css; charset=utf-8",
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ctype, ok := assetTypes[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := assets.ReadFile(path.Join("assets", name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(b)
}

// word shows a stored code (a pipeline or lease status, a health word, a
// reason code) in the page's language with the code itself beside it,
// as status does: the words for the person, the code for a search.
func word(loc *i18n.Localizer, code string) string {
	if code == "" {
		return "—"
	}
	if w := vocab.Word(loc, code); w != code {
		return w + " (" + code + ")"
	}
	return code
}
