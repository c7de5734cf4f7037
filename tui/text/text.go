// Package text holds the window's width-safe string helpers. Every width
// is measured in terminal cells with lipgloss/x-ansi (a Chinese character
// is two cells, an East Asian ambiguous one is one), every cut is
// ANSI-aware, and nothing ever counts bytes or runes. Panes build their
// output with Fit and Block, so that no line they return is wider than
// the space they were given.
package text

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Width returns the display width of s in cells, escape codes ignored.
func Width(s string) int { return lipgloss.Width(s) }

// Truncate cuts s to at most w cells, ending in tail when it cut. It
// never returns a string wider than w, even when tail itself is wider.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	if ansi.StringWidth(tail) > w {
		tail = ""
	}
	return ansi.Truncate(s, w, tail)
}

// Fit returns the one-line s cut or padded with spaces to exactly w cells.
// It measures s once when it fits, which is the common case.
func Fit(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		if ansi.StringWidth(tail) > w {
			tail = ""
		}
		s = ansi.Truncate(s, w, tail)
		sw = ansi.StringWidth(s)
	}
	if pad := w - sw; pad > 0 {
		s += spaces(pad)
	}
	return s
}

// blanks serves runs of spaces without allocating for common widths.
const blanks = "                                                                                                                                                                                                                                                                "

func spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:n]
	}
	return strings.Repeat(" ", n)
}

// Block lays lines out as exactly h lines of exactly w cells: longer
// lines are cut, shorter ones padded, missing lines blank, extra lines
// dropped. It is the last step of every pane's View.
func Block(lines []string, w, h int, tail string) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var b strings.Builder
	blank := spaces(w)
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(Fit(lines[i], w, tail))
		} else {
			b.WriteString(blank)
		}
	}
	return b.String()
}

// Wrap breaks s into lines of at most w cells, at spaces where it can and
// inside words (or between CJK characters) where it must. Newlines in s
// start new lines.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, w, ""), "\n")...)
	}
	return out
}

// JoinColumns places blocks side by side. Every block must already be a
// Block of the given height; widths are taken as they are. It is cheaper
// than lipgloss.JoinHorizontal because it measures nothing.
func JoinColumns(h int, blocks ...string) string {
	split := make([][]string, len(blocks))
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
	}
	var sb strings.Builder
	for row := 0; row < h; row++ {
		if row > 0 {
			sb.WriteByte('\n')
		}
		for _, lines := range split {
			if row < len(lines) {
				sb.WriteString(lines[row])
			}
		}
	}
	return sb.String()
}
