package theme

// Glyphs are the few non-letter characters the window draws. Two sets
// exist because of East Asian ambiguous width: box drawing, "…", "·" and
// arrows are one cell to lipgloss but two in a terminal that renders
// ambiguous characters wide. When the person opts into wide ambiguous
// characters (RUNEWIDTH_EASTASIAN=1) the window draws only ASCII chrome,
// so that what it measures is what the terminal shows.
type Glyphs struct {
	Rule      string // fills a pane's title line
	Sep       string // between route bar fields
	Ellipsis  string // tail of truncated text
	Focus     string // marks the focused pane's title
	Cursor    string // marks the selected row
	Current   string // marks the current step
	Done      string // a finished step
	Failed    string // a failed step
	Pending   string // a step not yet started
	Running   string // a step in progress
	GaugeFull string // filled part of the heartbeat gauge
	GaugeNone string // empty part of the heartbeat gauge
	Follow    string // the event pane follows new events
	Worker    string // prefix of worker output lines
}

// UnicodeGlyphs are the default: every one of them is one cell in a
// terminal that renders ambiguous characters narrow.
func UnicodeGlyphs() Glyphs {
	return Glyphs{
		Rule: "─", Sep: " · ", Ellipsis: "…", Focus: "▸", Cursor: "›",
		Current: "▶", Done: "✓", Failed: "✗", Pending: "○", Running: "◐",
		GaugeFull: "█", GaugeNone: "░", Follow: "⇣", Worker: "│",
	}
}

// ASCIIGlyphs are drawn when ambiguous characters are wide.
func ASCIIGlyphs() Glyphs {
	return Glyphs{
		Rule: "-", Sep: " | ", Ellipsis: "...", Focus: ">", Cursor: ">",
		Current: ">", Done: "+", Failed: "x", Pending: "o", Running: "~",
		GaugeFull: "#", GaugeNone: ".", Follow: "v", Worker: "|",
	}
}
