package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/tui/text"
)

// TestFullHelpListsEveryKeyOnce: F1 lists every key of the key map,
// each once.
func TestFullHelpListsEveryKeyOnce(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	listed := map[string]int{}
	for _, g := range m.fullHelp() {
		for _, b := range g[1:] { // the first row is the group's title
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
	for k, n := range listed {
		if n > 1 {
			t.Errorf("%s is listed %d times", k, n)
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
