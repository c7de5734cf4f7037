package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/text"
)

// TestFullHelpListsEveryKeyOnce: F1 lists every key of the key map, and
// each binding once (a key such as up is listed once per thing it does:
// history in the message box, a line in a pane).
func TestFullHelpListsEveryKeyOnce(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	listed := map[string]int{}
	rows := map[string]int{}
	for _, g := range m.fullHelp() {
		for _, b := range g.Keys {
			rows[b.Help().Key+" "+b.Help().Desc]++
			for _, k := range b.Keys() {
				listed[k]++
			}
		}
	}
	km := reflect.ValueOf(*m.env.Keys)
	for i := range km.NumField() {
		b := km.Field(i).Interface().(key.Binding)
		if b.Help().Key == "" {
			continue
		}
		for _, k := range b.Keys() {
			if listed[k] == 0 {
				t.Errorf("%s (%s) is not in the full help", k, km.Type().Field(i).Name)
			}
		}
	}
	for r, n := range rows {
		if n > 1 {
			t.Errorf("%s is listed %d times", r, n)
		}
	}
}

// TestShortHelpKeepsQuitAndHelp: however narrow, the hint line ends with
// help and quit, in both languages and in every pane.
func TestShortHelpKeepsQuitAndHelp(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		for _, w := range []int{60, 80, 120, 160} {
			m := newTestModel(t, testOptions(lang), w, 30)
			for range numFocus {
				lines := viewLines(m)
				last := lines[len(lines)-1]
				k := m.env.Keys
				help := k.Help.Help().Key
				if m.Focus() == "input" {
					help = k.HelpAnyPane.Help().Key
				}
				if !strings.Contains(last, help) || !strings.Contains(last, k.Quit.Help().Key) || text.Width(last) > w {
					t.Errorf("%s %d cols, %s: hint line %q", lang, w, m.Focus(), last)
				}
				press(t, m, "tab")
			}
		}
	}
}

// TestHelpAt80x24ScrollsSearchesAndIsPerView: the help opened from a pane
// lists that pane's keys first, fits 80×24 in both languages, scrolls to
// its end where the commands line is whole (/issue, /changes, /help),
// and a search keeps only the keys that match.
func TestHelpAt80x24ScrollsSearchesAndIsPerView(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		m := newTestModel(t, testOptions(lang), 80, 24)
		focusOn(t, m, "events")
		press(t, m, "?")
		if !m.showHelp {
			t.Fatalf("%s: ? in the events did not open help", lang)
		}
		first := m.View()
		checkFrame(t, first, 80, 24, lang+" help")
		here := m.env.T("keys.help.this_view", "View", m.env.T("tui.pane.events"))
		if !strings.Contains(first, here) {
			t.Errorf("%s: help from the events does not start with %q:\n%s", lang, here, first)
		}
		press(t, m, "end")
		last := m.View()
		checkFrame(t, last, 80, 24, lang+" help at its end")
		if last == first {
			t.Fatalf("%s: the help does not scroll", lang)
		}
		flat := strings.Join(strings.Fields(last), " ")
		for _, c := range []string{"/issue", "/changes", "/help", "/accept", "/abandon"} {
			if !strings.Contains(flat, c) {
				t.Errorf("%s: the end of the help lacks %s:\n%s", lang, c, last)
			}
		}
		for _, w := range []int{60, 100, 160, 240} {
			m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
			press(t, m, "end")
			flat := strings.Join(strings.Fields(m.View()), " ")
			if !strings.Contains(flat, "/issue") || !strings.Contains(flat, "/help") {
				t.Errorf("%s %d cols: the commands are cut:\n%s", lang, w, m.View())
			}
			checkFrame(t, m.View(), w, 30, lang+" help")
		}
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		press(t, m, "/")
		typeText(m, "filter")
		press(t, m, "enter")
		found := m.View()
		checkFrame(t, found, 80, 24, lang+" help searched")
		if lang == "en" && (!strings.Contains(found, "type filter") || strings.Contains(found, "next pane")) {
			t.Errorf("search for filter:\n%s", found)
		}
		press(t, m, "esc", "esc")
		if m.showHelp {
			t.Errorf("%s: esc (clear the search, then close) left the help open", lang)
		}
	}
}
