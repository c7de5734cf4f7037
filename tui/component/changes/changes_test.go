package changes

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/componenttest"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// hostileDiff adds a line that, drawn raw, erases the line above it, and
// a line of Chinese text with a bidi override and a clipboard write, and
// a line whose carriage return would draw "ls" over "rm".
const hostileDiff = "diff --git a/h.txt b/h.txt\nnew file mode 100644\n--- /dev/null\n+++ b/h.txt\n@@ -0,0 +1,4 @@\n" +
	"+visible line\n+hidden\x1b[1A\x1b[2K\n+修复登录\u202e\x1b]52;c;aGk=\a\tend\n+rm -rf /\rls\n"

// The changes view shows every line of a hostile diff with its escapes
// visible, in place, and no byte a terminal would act on; rows keep the
// view's width with visible escapes and wide characters.
func TestHostileLinesShowTheirEscapes(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		m := New(componenttest.Env(lang, time.Time{}))
		m.SetSize(60, 16)
		m.visible = true
		m.Update(live.ChangesMsg{Source: live.ChangeSource{Path: "/w", Base: "b"}, Files: gitwork.Parse([]byte(hostileDiff))})
		view := m.View()
		if strings.ContainsAny(view, "\x1b\a\r\u202e") {
			t.Fatalf("%s: the view sends control bytes: %q", lang, view)
		}
		rows := strings.Split(view, "\n")
		found := false
		for i, r := range rows {
			if w := text.Width(r); w != 60 {
				t.Errorf("%s: row %d is %d wide: %q", lang, i, w, r)
			}
			if strings.Contains(r, `+hidden\x1b[1A\x1b[2K`) {
				found = true
				if i == 0 || !strings.Contains(rows[i-1], "+visible line") {
					t.Errorf("%s: the line above the hostile one is not there:\n%s", lang, view)
				}
			}
		}
		if !found || !strings.Contains(view, `+修复登录\u202e\x1b]52;c;aGk=\x07    end`) || !strings.Contains(view, `+rm -rf /\x0dls`) {
			t.Errorf("%s: hostile lines not shown with visible escapes:\n%s", lang, view)
		}
	}
}

// In colour, a visible escape is drawn in the warning tone, apart from
// the added line around it, so that it stands out from text that only
// looks like an escape.
func TestEscapesStandOutInColour(t *testing.T) {
	t.Parallel()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	st := theme.NewStyles(r, theme.DefaultTheme(), theme.UnicodeGlyphs())
	env := component.NewEnv(i18n.MustNew("en"), st, component.Settings{Zone: time.UTC})
	m := New(env)
	m.SetSize(60, 16)
	m.visible = true
	m.Update(live.ChangesMsg{Source: live.ChangeSource{Path: "/w", Base: "b"}, Files: gitwork.Parse([]byte(hostileDiff))})
	view := m.View()
	warn, added := st.Paint(theme.ToneWarn), st.Paint(theme.ToneOK)
	if !strings.Contains(view, added.Apply("+hidden")+warn.Apply(`\x1b`)+added.Apply("[1A")) {
		t.Errorf("the escape is not marked:\n%q", view)
	}
	if strings.Contains(view, "\x1b[1A") || strings.Contains(view, "\x1b]52") {
		t.Errorf("the file's escape sequence reached the frame:\n%q", view)
	}
}
