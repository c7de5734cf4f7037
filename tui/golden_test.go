package tui

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/relayctx"
)

// TestLayoutGolden runs the window as a program (teatest) on the fixture
// ledger with a live controller, and compares the final frame with
// testdata/TestLayoutGolden/<lang>_<w>x<h>.golden. Regenerate with
// go test ./tui -run TestLayoutGolden -update.
func TestLayoutGolden(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, sz[0], sz[1]), func(t *testing.T) {
				t.Parallel()
				view := runGoldenProgram(t, lang, sz[0], sz[1])
				checkFrame(t, view, sz[0], sz[1], "golden frame")
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// runGoldenProgram runs a program until it has drawn everything the
// fakes deliver, quits it, and returns its final frame.
func runGoldenProgram(t *testing.T, lang string, w, h int) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	opts := testOptions(lang)
	fd := opts.Feed.(*fakeFeed)
	r := newFakeRelay()
	manual := relayctx.Policy{Manual: true}
	opts.Relay, opts.ContextPolicy = r, &manual
	opts.Controllers = &fakeControllers{probe: live.Probe{Live: true, PID: 4242}}
	t.Cleanup(func() { cancel(); fd.Close(); r.Close() })

	fd.push(fixtureUpdate(40))
	for _, u := range []live.RelayUpdate{
		{Conn: &live.ConnState{Phase: live.ConnConnected}},
		{Controller: &live.ControllerState{State: "ready", PID: 4242}},
		{Run: &live.RunState{StepID: "S2", Lane: "worker", State: "generating"}},
		{Output: &live.OutputLine{StepID: "S2", Stream: "stdout", Line: "go test ./... ok 登录 29/29"}},
	} {
		r.notices <- u
	}
	tm := teatest.NewTestModel(t, New(ctx, opts), teatest.WithInitialTermSize(w, h))
	// The last notice and the last event show: every message was handled.
	marker := []byte("29/29")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, marker) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("下一步：运行测试")})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("运行测试")) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
	return fm.(*Model).View()
}
