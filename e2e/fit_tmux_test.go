package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/lipgloss"
)

// everyViewFits checks that every view of the window (the panes, the
// task list, help, the changes view, the log view) fits the pane at
// 80×24 and at 200×60, in English and, after F2, in Chinese: no line is
// wider than the pane (tmux joins a line the window wrapped, so a line
// drawn too wide shows as one) and no view has more rows than the pane.
// It leaves the window in English at 200×60.
func everyViewFits(win *screen) {
	win.t.Helper()
	views := [][]string{{"F4"}, {"F1"}, {"F3"}, {"F5"}}
	chinese := false
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		w, h := size[0], size[1]
		win.resize(w, h)
		for range 2 {
			win.keys("F2")
			chinese = !chinese
			screen := win.until(10*time.Second, "the language switched", func(s string) bool { return hasHan(s) == chinese })
			win.fits(w, h, "the panes", screen)
			for _, view := range views {
				before := win.joined()
				win.keys(view...)
				win.fits(w, h, view[0], win.settled(before))
				win.keys("Escape")
				win.fits(w, h, "after "+view[0], win.settled(""))
			}
		}
	}
}

// resize makes the window w×h.
func (s *screen) resize(w, h int) {
	s.t.Helper()
	if out, err := exec.Command("tmux", "-L", s.socket, "resize-window", "-t", "0", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h)).CombinedOutput(); err != nil {
		s.t.Fatalf("resize-window: %v %s", err, out)
	}
	s.until(10*time.Second, "the window redrawn at the new size", func(string) bool {
		return len(strings.Split(strings.TrimRight(s.joined(), "\n"), "\n")) <= h && s.display("#{window_width}") == strconv.Itoa(w)
	})
}

// joined is the screen with the lines the terminal wrapped joined again.
func (s *screen) joined() string {
	out, err := exec.Command("tmux", "-L", s.socket, "capture-pane", "-p", "-J").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// settled waits until the screen differs from before (any screen when
// before is empty) and two captures in a row agree, and returns it.
func (s *screen) settled(before string) string {
	s.t.Helper()
	last := ""
	deadline := time.Now().Add(10 * time.Second)
	for {
		now := s.joined()
		if now == last && now != before {
			return now
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen did not settle on a new view within 10s:\n%s", now)
		}
		last = now
		time.Sleep(150 * time.Millisecond) // polling the screen; the condition decides
	}
}

// fits fails the test if screen has a line wider than w cells or more
// than h rows.
func (s *screen) fits(w, h int, what, screen string) {
	s.t.Helper()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) > h {
		s.t.Errorf("%s at %d×%d: %d rows:\n%s", what, w, h, len(lines), screen)
	}
	for _, l := range lines {
		if lipgloss.Width(strings.TrimRight(l, " ")) > w {
			s.t.Errorf("%s at %d×%d: a line %d cells wide:\n%s", what, w, h, lipgloss.Width(l), l)
		}
	}
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}
