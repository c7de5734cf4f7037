package helpview

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// Group is one titled list of keys in the full help: the view the help
// was opened from, the keys that work everywhere, each other pane.
type Group struct {
	Title string
	Keys  []key.Binding
}

// Full is the full help the person opens with "?" or F1: one key per
// row (so nothing is cut at 80 columns), scrolled by line and page, and
// searched with "/" (the search text is drawn in the title line while it
// is typed). It keeps only the scroll and the search; the groups are
// built by the root from the key map each time it draws, so the help
// always lists what the keys do now.
type Full struct {
	scroll    int
	query     string
	searching bool
}

// Reset forgets the scroll and the search, for a help opened anew.
func (f *Full) Reset() { *f = Full{} }

// Searching reports whether the person is typing a search: every
// printable key is then text.
func (f *Full) Searching() bool { return f.searching }

// Key handles a key of the open help; it reports false for a key the
// help does not use (the root then closes the help on esc, or passes
// on global keys).
func (f *Full) Key(env *component.Env, msg tea.KeyMsg, page int) bool {
	k := env.Keys
	if f.searching {
		switch {
		case component.IsText(msg):
			f.query += string(msg.Runes)
			if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
				f.query += " "
			}
		case msg.Type == tea.KeyBackspace:
			if r := []rune(f.query); len(r) > 0 {
				f.query = string(r[:len(r)-1])
			}
		case msg.Type == tea.KeyEnter:
			f.searching = false
		case msg.Type == tea.KeyEsc:
			f.searching, f.query = false, ""
		default:
			return false
		}
		f.scroll = 0
		return true
	}
	switch {
	case key.Matches(msg, k.Search):
		f.searching, f.query, f.scroll = true, "", 0
	case f.query != "" && key.Matches(msg, k.Dismiss):
		f.query, f.scroll = "", 0 // the first esc clears the search
	case key.Matches(msg, k.Up):
		f.scroll--
	case key.Matches(msg, k.Down):
		f.scroll++
	case key.Matches(msg, k.PageUp):
		f.scroll -= page
	case key.Matches(msg, k.PageDown):
		f.scroll += page
	case key.Matches(msg, k.Top):
		f.scroll = 0
	case key.Matches(msg, k.Bottom):
		f.scroll = 1 << 30
	default:
		return false
	}
	return true
}

// Keys are the help's own keys, for its short help line.
func Keys(env *component.Env) []key.Binding {
	k := env.Keys
	return []key.Binding{k.Up, k.Down, k.PageDown, k.Search, k.Dismiss}
}

// Clamp keeps the scroll in range for the help drawn w×h, after a key
// moved it (View does not change the help).
func (f *Full) Clamp(env *component.Env, groups []Group, notes []string, w, h int) {
	f.scroll = min(max(f.scroll, 0), max(len(f.rows(env, groups, notes, w))-max(h-1, 1), 0))
}

// View draws the help as a pane of w×h cells: groups, then notes
// (already in env's language, wrapped, never cut).
func (f Full) View(env *component.Env, groups []Group, notes []string, w, h int) string {
	rows := f.rows(env, groups, notes, w)
	body := max(h-1, 1)
	f.scroll = min(max(f.scroll, 0), max(len(rows)-body, 0))
	end := min(f.scroll+body, len(rows))
	info := env.T("keys.help.info", "From", strconv.Itoa(min(f.scroll+1, len(rows))), "To", strconv.Itoa(end),
		"Of", strconv.Itoa(len(rows)))
	if f.searching || f.query != "" {
		info = env.T("keys.help.search", "Query", env.Clean(f.query)) + " " + env.Styles.Glyphs.Sep + " " + info
	}
	return component.Frame(env, env.T("tui.pane.help"), info, true, w, h, rows[f.scroll:end])
}

// rows lays the help out one key per row, the key column as wide as the
// widest key (up to a third of the width), keeping only rows that match
// the search.
func (f Full) rows(env *component.Env, groups []Group, notes []string, w int) []string {
	st := env.Styles
	q := strings.ToLower(strings.TrimSpace(f.query))
	keyW := 0
	for _, g := range groups {
		for _, b := range g.Keys {
			keyW = max(keyW, text.Width(b.Help().Key))
		}
	}
	keyW = min(keyW, max(w/3, 4))
	descW := max(w-keyW-5, 1)
	var out []string
	for _, g := range groups {
		var rows []string
		for _, b := range g.Keys {
			h := b.Help()
			if q != "" && !strings.Contains(strings.ToLower(h.Key+" "+h.Desc+" "+g.Title), q) {
				continue
			}
			kcell := text.Fit(h.Key, keyW, env.Tail())
			for i, d := range text.Wrap(h.Desc, descW) {
				if i > 0 {
					kcell = strings.Repeat(" ", keyW)
				}
				rows = append(rows, "   "+st.Help.Key.Render(kcell)+"  "+st.Help.Desc.Render(d))
			}
		}
		if len(rows) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, " "+st.Bold.Render(text.Fit(g.Title, max(w-2, 1), env.Tail())))
		out = append(out, rows...)
	}
	for _, n := range notes {
		var para []string
		for _, l := range text.Wrap(n, max(w-3, 1)) {
			para = append(para, " "+st.Muted.Render(l))
		}
		if n == "" || (q != "" && !strings.Contains(strings.ToLower(n), q)) {
			continue
		}
		out = append(append(out, ""), para...)
	}
	if len(out) == 0 {
		out = append(out, " "+st.Muted.Render(text.Fit(env.T("keys.help.nothing"), max(w-2, 1), env.Tail())))
	}
	return out
}
