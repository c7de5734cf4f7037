package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/live"
)

// richModel is a window with something in every pane: Chinese text in
// the goal, the events, the conversation and the worker digest, a bad
// file in the banner, and a lost controller.
func richModel(t testing.TB, lang string) *Model {
	t.Helper()
	opts := testOptions(lang)
	opts.Relay = newFakeRelay()
	opts.Controllers = &fakeControllers{probe: live.Probe{Live: true, PID: 42}}
	m := newTestModel(t, opts, 120, 40)
	feed(m, fixtureUpdate(200))
	bad := fixtureSnapshot()
	bad.Leases.Err = &ledger.FileError{File: ledger.LeasesFile, Err: ledger.ErrEmpty}
	bad.Leases.Stale = true
	feed(m, live.LedgerUpdate{Snapshot: bad})
	for _, u := range []live.RelayUpdate{
		{Conn: &live.ConnState{Phase: live.ConnConnected}},
		{Route: &live.Route{TaskID: "DK-1A2B3C4D", RunID: "R", ActiveLane: "worker", ActiveStep: "S2", NextAction: "wait_for_worker"}},
		{Output: &live.OutputLine{StepID: "S2", Line: "正在编译 internal/登录/handler.go …… 这是一行很长的工作进程输出，用来检查截断"}},
		{Run: &live.RunState{StepID: "S2", State: "generating"}},
		{Conn: &live.ConnState{Phase: live.ConnDisconnected, Err: &live.Error{Code: "unavailable"}}},
	} {
		_, cmd := m.Update(live.RelayMsg{Update: u})
		runQuick(m, cmd)
	}
	runQuick(m, m.tell(m.conv, conversation.NoteMsg{Kind: conversation.KindUser, At: fixedNow, Text: strings.Repeat("请把登录页面的布局修好，", 8)}))
	typeText(m, "多行输入的第一行")
	press(t, m, "alt+enter")
	typeText(m, "第二行 second line")
	return m
}

// TestNoLineWiderThanTerminal resizes rich windows in both languages over
// widths 20..220 and heights 5..70, in every focus and with help and the
// event detail open, and checks every frame fits the terminal.
func TestNoLineWiderThanTerminal(t *testing.T) {
	t.Parallel()
	heights := []int{5, 9, 11, 12, 13, 17, 20, 24, 29, 36, 48, 70}
	if testing.Short() {
		heights = []int{5, 12, 24, 48}
	}
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			m := richModel(t, lang)
			checked := 0
			for w := 20; w <= 220; w++ {
				for i, h := range heights {
					m.Update(tea.WindowSizeMsg{Width: w, Height: h})
					if (w+i)%7 == 0 {
						press(t, m, "tab")
					}
					what := fmt.Sprintf("%s %dx%d focus %s", lang, w, h, m.Focus())
					checkFrame(t, m.View(), w, h, what)
					if t.Failed() {
						return
					}
					checked++
				}
			}
			for _, mode := range []string{"help", "detail"} {
				switch mode {
				case "help":
					press(t, m, "f1")
				case "detail":
					press(t, m, "f1")
					for m.Focus() != "events" {
						press(t, m, "tab")
					}
					press(t, m, "enter")
				}
				for w := 20; w <= 220; w += 5 {
					for _, h := range heights {
						m.Update(tea.WindowSizeMsg{Width: w, Height: h})
						checkFrame(t, m.View(), w, h, fmt.Sprintf("%s %s %dx%d", lang, mode, w, h))
						if t.Failed() {
							return
						}
						checked++
					}
				}
			}
			t.Logf("%d frames checked", checked)
		})
	}
}

// TestFrameFillsTerminal checks that the layout uses the whole terminal:
// exactly h lines, so that nothing of an earlier frame is left behind.
func TestFrameFillsTerminal(t *testing.T) {
	t.Parallel()
	m := richModel(t, "zh-CN")
	for _, sz := range [][2]int{{40, 12}, {80, 24}, {100, 30}, {160, 48}, {220, 70}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		lines := viewLines(m)
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
	}
}

// TestSmallWindowSaysWhatItHid: at 60×20 the window shows one pane and
// says which ones it hid and that Tab brings them up, in both languages.
func TestSmallWindowSaysWhatItHid(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		m := newTestModel(t, testOptions(lang), 60, 20)
		feed(m, fixtureUpdate(20))
		v := m.View()
		checkFrame(t, v, 60, 20, lang+" 60x20")
		want := m.env.T("tui.pane.pipeline")
		if !strings.Contains(v, want) || !strings.Contains(v, m.env.Keys.NextPane.Help().Key) {
			t.Errorf("%s: 60x20 does not say %q is hidden:\n%s", lang, want, v)
		}
		focusOn(t, m, "pipeline")
		if v := m.View(); !strings.Contains(v, m.env.T("tui.pipeline.goal")) {
			t.Errorf("%s: tab did not bring the pipeline up:\n%s", lang, v)
		}
	}
}
