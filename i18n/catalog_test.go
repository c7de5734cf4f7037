package i18n

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/daokit/daokit/i18n/internal/catalog"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
)

// locales are the catalog sources; only the tests read them, the binary
// carries the generated catalog files.
//
//go:embed locales/*.toml
var locales embed.FS

type catalogMessage struct {
	description string
	other       string
}

// readCatalogs returns area -> lang -> id -> message from the embedded files.
func readCatalogs(t *testing.T) map[string]map[string]map[string]catalogMessage {
	t.Helper()
	files, err := fs.Glob(locales, "locales/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no catalogs: %v", err)
	}
	out := map[string]map[string]map[string]catalogMessage{}
	for _, name := range files {
		base := strings.TrimSuffix(path.Base(name), ".toml")
		area, lang, ok := strings.Cut(base, ".")
		if !ok || !slices.Contains(Supported(), lang) {
			t.Errorf("%s: catalog file must be named <area>.<lang>.toml with lang in %v", name, Supported())
			continue
		}
		data, _ := locales.ReadFile(name)
		var raw map[string]any
		if err := toml.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		msgs := map[string]catalogMessage{}
		flatten("", raw, msgs)
		if out[area] == nil {
			out[area] = map[string]map[string]catalogMessage{}
		}
		out[area][lang] = msgs
	}
	return out
}

func flatten(prefix string, node map[string]any, into map[string]catalogMessage) {
	if other, ok := node["other"].(string); ok {
		desc, _ := node["description"].(string)
		into[prefix] = catalogMessage{description: desc, other: other}
		return
	}
	for k, v := range node {
		child, ok := v.(map[string]any)
		if !ok {
			continue
		}
		id := k
		if prefix != "" {
			id = prefix + "." + k
		}
		flatten(id, child, into)
	}
}

var templateVar = regexp.MustCompile(`\{\{\s*\.(\w+)`)

func templateVars(s string) []string {
	var vars []string
	for _, m := range templateVar.FindAllStringSubmatch(s, -1) {
		vars = append(vars, m[1])
	}
	sort.Strings(vars)
	return slices.Compact(vars)
}

func TestCatalogsHaveSameIDsAndVariables(t *testing.T) {
	for area, langs := range readCatalogs(t) {
		en, zh := langs[English], langs[Chinese]
		if en == nil || zh == nil {
			t.Errorf("area %s: want both %s and %s catalogs", area, English, Chinese)
			continue
		}
		for id, m := range en {
			z, ok := zh[id]
			if !ok {
				t.Errorf("%s: %q missing from %s catalog", area, id, Chinese)
				continue
			}
			if got, want := templateVars(z.other), templateVars(m.other); !slices.Equal(got, want) {
				t.Errorf("%s: %q uses variables %v in %s, %v in %s", area, id, got, Chinese, want, English)
			}
			if strings.TrimSpace(m.description) == "" || strings.TrimSpace(z.description) == "" {
				t.Errorf("%s: %q needs a description for translators in both catalogs", area, id)
			}
			if strings.TrimSpace(z.other) == "" || strings.TrimSpace(m.other) == "" {
				t.Errorf("%s: %q has an empty text", area, id)
			}
		}
		for id := range zh {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: %q missing from %s catalog", area, id, English)
			}
		}
	}
}

func TestCatalogsLoadAndRender(t *testing.T) {
	for _, lang := range Supported() {
		l, err := New(lang)
		if err != nil {
			t.Fatalf("New(%q): %v", lang, err)
		}
		got := l.T("cli.error.unknown_language", "Source", "--lang", "Value", "fr", "Supported", "en, zh-CN")
		if !strings.Contains(got, "fr") || strings.Contains(got, "cli.error") {
			t.Errorf("%s: rendered %q", lang, got)
		}
	}
	zh, _ := New(Chinese)
	if got := zh.T("cli.error.unknown_language", "Source", "s", "Value", "v", "Supported", "x"); !strings.Contains(got, "不支持") {
		t.Errorf("Chinese text not used: %q", got)
	}
	if got := zh.T("no.such.message"); got != "no.such.message" {
		t.Errorf("missing id renders %q, want the id", got)
	}
}

// TestGeneratedCatalogIsCurrent keeps the generated catalog files in
// step with the TOML files, so that the fast start-up path shows the
// current texts: every file is rendered again and compared, and no
// generated file of a removed area is left behind.
func TestGeneratedCatalogIsCurrent(t *testing.T) {
	files, err := catalog.Files(locales, "locales")
	if err != nil {
		t.Fatal(err)
	}
	want, err := catalog.Render(locales, "i18n", files)
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range want {
		got, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%s is out of date with i18n/locales: run `go generate ./i18n`", name)
		}
	}
	onDisk, err := filepath.Glob(catalog.AreaFile("*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range onDisk {
		if _, ok := want[name]; !ok {
			t.Errorf("%s belongs to no catalog area: run `go generate ./i18n`", name)
		}
	}
	msgs, err := catalog.Load(locales, files)
	if err != nil {
		t.Fatal(err)
	}
	for lang, entries := range msgs {
		// The run time finds a message by binary search in each area.
		for _, area := range generatedAreas(lang) {
			if !slices.IsSortedFunc(area, func(a, b *goi18n.Message) int { return strings.Compare(a.ID, b.ID) }) {
				t.Errorf("%s: generated messages are not sorted by id", lang)
			}
		}
		if n := len(allGenerated(lang)); n != len(entries) {
			t.Errorf("%s: %d generated messages, %d in the catalogs", lang, n, len(entries))
		}
	}
}

// allGenerated is every generated message of lang, sorted by id.
func allGenerated(lang string) []*goi18n.Message {
	all := slices.Concat(generatedAreas(lang)...)
	slices.SortFunc(all, func(a, b *goi18n.Message) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// TestOnlyLanguageInUseIsLoaded keeps start-up cheap: rendering Chinese
// builds the Chinese bundle only; English is built when a message is
// missing, for the fallback.
func TestOnlyLanguageInUseIsLoaded(t *testing.T) {
	localizers = [2]lazyLocalizer{}
	t.Cleanup(func() { localizers = [2]lazyLocalizer{} })
	zh, err := New(Chinese)
	if err != nil {
		t.Fatal(err)
	}
	if localizers[1].loc != nil {
		t.Fatal("New built a bundle; it should wait for the first message")
	}
	if got := zh.T("workflow.role.judge"); got != "裁判" {
		t.Fatalf("T = %q, want 裁判", got)
	}
	if localizers[0].loc != nil {
		t.Fatal("rendering Chinese built the English bundle")
	}
	if got := zh.T("no.such.message"); got != "no.such.message" {
		t.Fatalf("missing id renders %q, want the id", got)
	}
	if localizers[0].loc == nil {
		t.Fatal("a missing message did not consult English")
	}
}

// TestMissingMessageFallsBackToEnglish shows a gap in the Chinese
// catalog as the English text, not as the id.
func TestMissingMessageFallsBackToEnglish(t *testing.T) {
	localizers = [2]lazyLocalizer{}
	t.Cleanup(func() { localizers = [2]lazyLocalizer{} })
	zh := localizer(Chinese)
	zh.msgs = [][]*goi18n.Message{slices.DeleteFunc(allGenerated(Chinese), func(m *goi18n.Message) bool {
		return m.ID == "workflow.role.judge"
	})}
	if got := MustNew(Chinese).T("workflow.role.judge"); got != "judge" {
		t.Fatalf("T = %q, want the English text", got)
	}
	if got := MustNew(Chinese).T("workflow.summary.commands", "Count", 2); got != "运行了 2 条命令" {
		t.Fatalf("T = %q, want the Chinese text", got)
	}
}

// TestConcurrentFirstUse renders messages for the first time from many
// goroutines at once, as the window and the controller may; -race checks
// that adding messages to a bundle never races with rendering.
func TestConcurrentFirstUse(t *testing.T) {
	localizers = [2]lazyLocalizer{}
	t.Cleanup(func() { localizers = [2]lazyLocalizer{} })
	msgs := allGenerated(English)[:60]
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			l := MustNew(Supported()[g%2])
			for _, m := range msgs {
				if got := l.T(m.ID, "Path", "/x", "Count", g); got == m.ID || got == "" {
					t.Errorf("%s: %s rendered %q", l.Lang(), m.ID, got)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkFirstLocalizer is what a command pays for its messages: a
// Localizer and its first rendered message (with template data), from a
// cold start (no bundle built yet).
func BenchmarkFirstLocalizer(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		localizers = [2]lazyLocalizer{}
		l, err := New(Chinese)
		if err != nil {
			b.Fatal(err)
		}
		if l.T("cli.error.root_missing", "Path", "/x") == "" {
			b.Fatal("empty message")
		}
	}
}

// BenchmarkT is the steady state: a message rendered again, as the window
// does on every frame.
func BenchmarkT(b *testing.B) {
	b.ReportAllocs()
	l := MustNew(Chinese)
	l.T("cli.error.root_missing", "Path", "/x")
	for range b.N {
		if l.T("cli.error.root_missing", "Path", "/x") == "" {
			b.Fatal("empty message")
		}
	}
}

// BenchmarkFirstScreen is a command's first screen from a cold start: a
// Localizer and 120 different messages, each rendered for the first time
// (what `daokit --help` or the window's first frame pays).
func BenchmarkFirstScreen(b *testing.B) {
	ids := make([]string, 0, 120)
	for _, m := range allGenerated(English)[:120] {
		ids = append(ids, m.ID)
	}
	for _, lang := range Supported() {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				localizers = [2]lazyLocalizer{}
				l := MustNew(lang)
				for _, id := range ids {
					if l.T(id, "Path", "/x", "Count", 3) == id {
						b.Fatalf("%s: %s not rendered", lang, id)
					}
				}
			}
		})
	}
}
