package tui

import "github.com/mattn/go-runewidth"

// ApplyWidthPolicy fixes, once at start-up, how wide East Asian
// ambiguous characters are: one cell, unless the person opts in with
// RUNEWIDTH_EASTASIAN=1. lipgloss and x/ansi always count them as one;
// go-runewidth (used by bubbles' text area) guesses from LANG, and under
// zh_CN.UTF-8 would count them as two, so the same line would measure
// differently in two places and golden files would differ between
// machines. The policy makes go-runewidth follow the person's choice and
// not the locale, and reports whether the terminal draws ambiguous
// characters wide. In that case the window draws ASCII chrome and cleans
// ledger text of ambiguous characters (Options.Wide), so that what
// lipgloss measures is what the terminal shows.
//
// It sets go-runewidth's package-level condition, the one global the
// window touches, before the program starts.
func ApplyWidthPolicy(getenv func(string) string) (wide bool) {
	wide = getenv("RUNEWIDTH_EASTASIAN") == "1"
	runewidth.DefaultCondition.EastAsianWidth = wide
	runewidth.EastAsianWidth = wide
	return wide
}
