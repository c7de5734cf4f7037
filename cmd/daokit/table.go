package main

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/daokit/daokit/termsafe"
)

// writeTable prints rows under headers with columns padded by display
// width, so that Chinese headers (two cells a character) still line up.
// On a terminal (w escapes what it gets) a cell is measured as it will
// be shown: a visible escape takes its cells.
func writeTable(w io.Writer, indent string, headers []string, rows [][]string) {
	width := ansi.StringWidth
	if _, escapes := w.(*termsafe.Writer); escapes {
		width = func(s string) int { return ansi.StringWidth(termsafe.Escape(s)) }
	}
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = width(h)
	}
	for _, r := range rows {
		for i := range headers {
			if i < len(r) {
				widths[i] = max(widths[i], width(r[i]))
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString(indent)
		for i := range headers {
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			b.WriteString(cell)
			if i < len(headers)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-width(cell)+2))
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
	line(headers)
	for _, r := range rows {
		line(r)
	}
}
