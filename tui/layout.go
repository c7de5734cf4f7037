package tui

import "github.com/daokit/daokit/tui/component/banner"

// Minimum terminal size for the layout; below it the window shows a
// message instead of panes.
const (
	minWidth  = 40
	minHeight = 12
)

// mode is how the panes are arranged.
type mode int

const (
	modeTooSmall mode = iota // a message, no panes
	modeSingle               // one pane at a time, under a heartbeat strip
	modeColumns              // pipeline, heartbeat, leases | conversation, events
)

// layout is where everything goes for one terminal size. Heights are in
// lines, widths in cells; the parts stack in this order: route bar,
// banner, body, input, status bar, help line.
type layout struct {
	mode       mode
	w, h       int
	bannerH    int
	bodyH      int
	inputH     int
	leftW, gap int
	rightW     int
	pipeH, hbH int
	leasesH    int
	rolesH     int // the roles pane, below the leases; 0 without a team
	convH      int
	eventsH    int
	singleHBH  int // heartbeat strip above the single pane
	singleNote int // the line saying which panes are hidden, and how to reach them
	singleH    int // the single pane
}

// oneLiners is the route bar, the status bar and the help line.
const oneLiners = 3

// computeLayout arranges a w×h terminal. pipeWant is the height the
// pipeline pane needs; the leases get what it does not.
func computeLayout(w, h, bannerH, pipeWant int, readOnly bool) layout {
	l := layout{w: w, h: h}
	if w < minWidth || h < minHeight {
		l.mode = modeTooSmall
		return l
	}
	l.inputH = 3
	if h >= 36 {
		l.inputH = 4
	}
	if readOnly {
		l.inputH = 2
	}
	// The banner may take a line of the body even at the minimum height:
	// a problem must show.
	l.bannerH = min(bannerH, max(h-minHeight, 0)+1, banner.MaxHeight)
	l.bodyH = h - oneLiners - l.bannerH - l.inputH
	if w >= 72 && l.bodyH >= 12 {
		l.columns(pipeWant)
	} else {
		l.single()
	}
	return l
}

// columns splits the body into a left column (pipeline, heartbeat,
// leases) and a right one (conversation, events).
func (l *layout) columns(pipeWant int) {
	l.mode = modeColumns
	l.gap = 1
	l.leftW = min(max(l.w*38/100, 34), 64)
	l.rightW = l.w - l.leftW - l.gap
	l.hbH = 5
	if l.bodyH < 24 {
		l.hbH = 4
	}
	rest := l.bodyH - l.hbH
	l.pipeH = min(max(rest*55/100, 3), max(pipeWant, rest/3))
	l.leasesH = rest - l.pipeH
	l.convH = max(l.bodyH*45/100, 3)
	l.eventsH = l.bodyH - l.convH
}

// single shows the focused pane alone, under a three-line heartbeat when
// there is room for it.
func (l *layout) single() {
	l.mode = modeSingle
	if l.bodyH >= 10 {
		l.singleHBH = 3
	}
	if l.bodyH >= 6 {
		l.singleNote = 1
	}
	l.singleH = l.bodyH - l.singleHBH - l.singleNote
}

// withRoles gives the roles pane the lower two thirds of the leases'
// room when the root has a team (columns mode only; the leases keep at
// least 3 lines, the roles get at least 3).
func (l layout) withRoles(has bool) layout {
	if !has || l.mode != modeColumns || l.leasesH < 6 {
		return l
	}
	l.rolesH = l.leasesH - max(3, l.leasesH/3)
	l.leasesH -= l.rolesH
	return l
}
