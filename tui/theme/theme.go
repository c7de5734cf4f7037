// Package theme turns a colour Theme into the Styles every pane draws with.
// It is its own package so that the root model and every component can
// import it without cycles; nothing here is package-level mutable state:
// Styles are built once per renderer and handed down.
package theme

import "github.com/charmbracelet/lipgloss"

// Theme is the window's palette. Each colour adapts to light and dark
// terminals; no pane names a colour of its own.
type Theme struct {
	Text      lipgloss.AdaptiveColor // body text
	Muted     lipgloss.AdaptiveColor // secondary text, rules, labels
	Accent    lipgloss.AdaptiveColor // focused titles, keys in help
	OK        lipgloss.AdaptiveColor // RUNNING, DONE, ACTIVE, INFO
	Warn      lipgloss.AdaptiveColor // WARNING, WARN, EXPIRED
	Bad       lipgloss.AdaptiveColor // STALE, FAILED, ERROR
	Special   lipgloss.AdaptiveColor // TAKEN_OVER, BLOCKED, takeover events
	Progress  lipgloss.AdaptiveColor // EXECUTE, dispatched, in-flight states
	User      lipgloss.AdaptiveColor // what the person typed
	Selection lipgloss.AdaptiveColor // background of the selected row
	BannerBg  lipgloss.AdaptiveColor // background of problem banners
}

// DefaultTheme is the palette used unless a caller supplies another. The
// ANSI 16-colour indexes keep it readable under the terminal's own scheme.
func DefaultTheme() Theme {
	return Theme{
		Text:      lipgloss.AdaptiveColor{Light: "0", Dark: "15"},
		Muted:     lipgloss.AdaptiveColor{Light: "8", Dark: "245"},
		Accent:    lipgloss.AdaptiveColor{Light: "4", Dark: "12"},
		OK:        lipgloss.AdaptiveColor{Light: "2", Dark: "10"},
		Warn:      lipgloss.AdaptiveColor{Light: "3", Dark: "11"},
		Bad:       lipgloss.AdaptiveColor{Light: "1", Dark: "9"},
		Special:   lipgloss.AdaptiveColor{Light: "5", Dark: "13"},
		Progress:  lipgloss.AdaptiveColor{Light: "6", Dark: "14"},
		User:      lipgloss.AdaptiveColor{Light: "4", Dark: "117"},
		Selection: lipgloss.AdaptiveColor{Light: "254", Dark: "237"},
		BannerBg:  lipgloss.AdaptiveColor{Light: "224", Dark: "52"},
	}
}
