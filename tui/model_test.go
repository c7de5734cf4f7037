package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
)

func TestTabCyclesFocus(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	// As on the screen: the left column top to bottom, then the right,
	// then the input.
	want := []string{"pipeline", "heartbeat", "leases", "conversation", "events", "input"}
	for _, w := range want {
		press(t, m, "tab")
		if got := m.Focus(); got != w {
			t.Fatalf("after tab: focus %q, want %q", got, w)
		}
	}
	press(t, m, "shift+tab")
	if got := m.Focus(); got != "events" {
		t.Fatalf("after shift+tab: focus %q, want events", got)
	}
}

func TestReadOnlySkipsInput(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.ReadOnly = true
	m := newTestModel(t, opts, 120, 40)
	if m.Focus() != "events" {
		t.Fatalf("read-only window starts on %q, want events", m.Focus())
	}
	for range 12 {
		press(t, m, "tab")
		if m.Focus() == "input" {
			t.Fatal("tab reached the input of a read-only window")
		}
	}
	if !strings.Contains(m.View(), "read-only") {
		t.Error("read-only window does not say so")
	}
}

func TestEnterForwardsAndShowsDelivery(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	typeText(m, "修复登录页面")
	press(t, m, "alt+enter")
	typeText(m, "and add a test")
	press(t, m, "enter")
	want := "forward:修复登录页面\nand add a test"
	if calls := r.Calls(); !slices.Contains(calls, want) {
		t.Fatalf("relay calls %q, want %q among them", calls, want)
	}
	view := m.View()
	for _, s := range []string{"修复登录页面", "delivered", "DK-1 S1@worker"} {
		if !strings.Contains(view, s) {
			t.Errorf("view lacks %q after the ack:\n%s", s, view)
		}
	}
	if m.input.Value() != "" {
		t.Errorf("input keeps %q after sending", m.input.Value())
	}
}

func TestFailedForwardSaysNotDelivered(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	r.forwardE = &live.Error{Code: "unavailable"}
	opts := testOptions("zh-CN")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	typeText(m, "hello")
	press(t, m, "enter")
	view := m.View()
	if !strings.Contains(view, "未送达") || !strings.Contains(view, "没有控制器响应") {
		t.Errorf("failed send not shown in Chinese:\n%s", view)
	}
	press(t, m, "up")
	if m.input.Value() != "hello" {
		t.Errorf("history up gives %q, want the failed message back", m.input.Value())
	}
}

func TestHistoryUpDown(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.Relay = newFakeRelay()
	m := newTestModel(t, opts, 120, 40)
	for _, s := range []string{"one", "two", "three"} {
		typeText(m, s)
		press(t, m, "enter")
	}
	typeText(m, "draft")
	steps := []struct{ key, want string }{
		{"up", "three"}, {"up", "two"}, {"up", "one"}, {"up", "one"},
		{"down", "two"}, {"down", "three"}, {"down", "draft"},
	}
	for _, s := range steps {
		press(t, m, s.key)
		if got := m.input.Value(); got != s.want {
			t.Fatalf("after %s: input %q, want %q", s.key, got, s.want)
		}
	}
}

func TestSlashCommandsForwardControlsOnly(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	for _, s := range []string{"/retry", "/cancel", "/status", "/takeover", "/release S1", "/execute", "/route worker", "//literal"} {
		typeText(m, s)
		press(t, m, "enter")
	}
	want := []string{"observe", "control:retry", "control:cancel", "control:status", "forward:/literal"}
	if got := r.Calls(); !slices.Equal(got, want) {
		t.Fatalf("relay calls %q, want %q", got, want)
	}
	if !strings.Contains(m.View(), "Unknown command /takeover") {
		t.Errorf("unknown command not explained:\n%s", m.View())
	}
}

func TestLanguageSwitchRebuildsKeysAndHelp(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	feed(m, fixtureUpdate(10))
	press(t, m, "tab") // leave the input, where "L" is text
	if !strings.Contains(m.View(), "next pane") {
		t.Fatal("English help missing")
	}
	press(t, m, "L")
	if m.Lang() != "zh-CN" {
		t.Fatalf("language %q after L, want zh-CN", m.Lang())
	}
	view := m.View()
	for _, s := range []string{"下一窗格", "流水线", "事件", "执行中", "静默告警", "下一步：等待工作进程"} {
		if !strings.Contains(view, s) {
			t.Errorf("Chinese view lacks %q", s)
		}
	}
	if strings.Contains(view, "next pane") {
		t.Error("English help left after the switch")
	}
	press(t, m, "shift+tab") // back to the input: F2 switches while typing
	typeText(m, "L")
	if m.Lang() != "zh-CN" || m.input.Value() != "L" {
		t.Fatalf("L while typing: lang %q input %q; want it typed", m.Lang(), m.input.Value())
	}
	press(t, m, "f2")
	if m.Lang() != "en" {
		t.Fatalf("language %q after F2, want en", m.Lang())
	}
}

func TestHelpOpensAndCloses(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	typeText(m, "why")
	press(t, m, "?")
	if m.showHelp || m.input.Value() != "why?" {
		t.Fatalf("? in a message must be typed, not open help (help %v, input %q)", m.showHelp, m.input.Value())
	}
	m.input.SetValue("")
	press(t, m, "?")
	if !m.showHelp || m.input.Value() != "" {
		t.Fatalf("? in an empty message box must open help (help %v, input %q)", m.showHelp, m.input.Value())
	}
	press(t, m, "?")
	if m.showHelp {
		t.Fatal("? did not close help")
	}
	typeText(m, "why")
	press(t, m, "f1")
	if !m.showHelp || !strings.Contains(m.View(), "Help") {
		t.Fatal("F1 did not open help")
	}
	press(t, m, "esc")
	if m.showHelp {
		t.Fatal("esc did not close help")
	}
	press(t, m, "tab", "?")
	if !m.showHelp {
		t.Fatal("? outside the input did not open help")
	}
}

func TestBadLedgerFileKeepsLastGoodData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		err    error
		reason string
	}{
		{"empty", ledger.ErrEmpty, "the file is empty"},
		{"missing", ledger.ErrMissing, "the file is missing"},
		{"invalid", &ledger.ValidationError{File: ledger.PipelineFile, Path: "$", Code: ledger.ProblemInvalidJSON}, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(t, testOptions("en"), 160, 48)
			feed(m, fixtureUpdate(5))
			bad := fixtureSnapshot()
			bad.Pipeline.Err = &ledger.FileError{File: ledger.PipelineFile, Path: "/demo/state/" + ledger.PipelineFile, Err: tc.err}
			bad.Pipeline.Stale = true
			feed(m, live.LedgerUpdate{Snapshot: bad})
			view := m.View()
			for _, s := range []string{"pipeline_state.json: " + tc.reason, "showing the last good data", "修复登录页面", "last good data"} {
				if !strings.Contains(view, s) {
					t.Errorf("view lacks %q:\n%s", s, view)
				}
			}
			feed(m, live.LedgerUpdate{Snapshot: fixtureSnapshot()})
			if strings.Contains(m.View(), "pipeline_state.json:") {
				t.Error("banner stays after the file is good again")
			}
		})
	}
}

func TestMissingLedgerShowsBannersNotPanes(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	s := &ledger.Snapshot{Root: "/nowhere"}
	for _, r := range []*error{&s.Pipeline.Err, &s.Heartbeat.Err, &s.Leases.Err} {
		*r = &ledger.FileError{Err: ledger.ErrMissing}
	}
	feed(m, live.LedgerUpdate{Initial: true, Snapshot: s, EventsErr: &ledger.FileError{Err: ledger.ErrMissing}})
	view := m.View()
	for _, s := range []string{"events.jsonl: the file is missing", "and 2 more problems", "No pipeline file yet."} {
		if !strings.Contains(view, s) {
			t.Errorf("view lacks %q:\n%s", s, view)
		}
	}
	checkFrame(t, view, 120, 40, "missing ledger")
}

func TestEventRingIsBounded(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.EventCapacity = 500
	m := newTestModel(t, opts, 120, 40)
	for i := range 30 {
		evs := fixtureEvents(100)
		for j := range evs {
			evs[j].EventID = fmt.Sprintf("evt_%d_%d", i, j)
		}
		feed(m, live.LedgerUpdate{Events: evs, Elided: 10})
	}
	if got := m.Events().Len(); got != 500 {
		t.Errorf("ring holds %d events, want 500", got)
	}
	if got := m.Events().Total(); got != 3300 {
		t.Errorf("total %d, want 3300 (3000 events and 300 elided)", got)
	}
	if !strings.Contains(m.View(), "3,300") {
		t.Error("event count not shown")
	}
}

func TestEventPaneFollowScrollFilterDetail(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	feed(m, fixtureUpdate(60))
	focusOn(t, m, "events")
	if m.Focus() != "events" || !m.Events().Following() {
		t.Fatalf("focus %q following %v", m.Focus(), m.Events().Following())
	}
	press(t, m, "kk") // two presses read at once arrive as one message
	if m.Events().Following() {
		t.Fatal("scrolling up kept follow mode")
	}
	feed(m, live.LedgerUpdate{Events: fixtureEvents(3)})
	if !strings.Contains(m.View(), "3 new") {
		t.Errorf("new events while scrolled are not counted:\n%s", m.View())
	}
	press(t, m, "G")
	if !m.Events().Following() {
		t.Fatal("G did not follow again")
	}
	press(t, m, "s") // WARN and above
	view := m.View()
	if strings.Contains(view, "INFO ") || !strings.Contains(view, "WARN+") {
		t.Errorf("severity filter shows INFO or no marker:\n%s", view)
	}
	press(t, m, "s", "t") // ERROR only, then the first type seen
	press(t, m, "x")
	if strings.Contains(m.View(), "WARN+") {
		t.Error("x did not clear the filter")
	}
	press(t, m, "enter")
	view = m.View()
	for _, s := range []string{"Event detail", "payload", "evt_"} {
		if !strings.Contains(view, s) {
			t.Errorf("detail view lacks %q:\n%s", s, view)
		}
	}
	press(t, m, "esc")
	if strings.Contains(m.View(), "Event detail") {
		t.Error("esc did not close the detail view")
	}
}

func TestDetailShowsChineseAsText(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("zh-CN"), 160, 48)
	ev := ledger.NewEvent(fixedNow, "T", "R", "S1", ledger.EventSystem, ledger.SeverityInfo, nil)
	line := `{"schema_version":"1.0.0","event_id":"e1","task_id":"T","run_id":"R","step_id":"S1","event_type":"SYSTEM","severity":"INFO","timestamp":"` + ev.Timestamp + `","payload":{"message":"\u4fee\u590d\u767b\u5f55","n":[1,2]},"dedup_key":null}`
	parsed, err := ledger.ParseEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	feed(m, live.LedgerUpdate{Events: []ledger.Event{parsed}})
	focusOn(t, m, "events")
	press(t, m, "enter")
	if view := m.View(); !strings.Contains(view, `"message": "修复登录"`) {
		t.Errorf("detail does not show the escaped Chinese as text:\n%s", view)
	}
}

func TestTerminalTooSmall(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		m := newTestModel(t, testOptions(lang), 30, 8)
		feed(m, fixtureUpdate(5))
		view := m.View()
		checkFrame(t, view, 30, 8, lang)
		want := map[string]string{"en": "30x8", "zh-CN": "终端大小"}[lang]
		if !strings.Contains(strings.ReplaceAll(view, "\n", ""), want) {
			t.Errorf("%s: too-small message lacks %q:\n%s", lang, want, view)
		}
	}
}

func TestLinkStartsControllerAndReportsLoss(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 160, 48)
	st := m.LinkState()
	if st.Phase != link.Waiting || st.PID != 4001 {
		t.Fatalf("after the probe found nothing: phase %v pid %d, want waiting for 4001", st.Phase, st.PID)
	}
	if !strings.Contains(m.View(), "waiting for its socket") {
		t.Errorf("start-up progress not shown:\n%s", m.View())
	}
	relay := func(c live.ConnState) {
		_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Conn: &c}})
		runQuick(m, cmd)
	}
	relay(live.ConnState{Phase: live.ConnConnected})
	_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Controller: &live.ControllerState{State: "ready", PID: 4001}}})
	runQuick(m, cmd)
	if v := m.View(); !strings.Contains(v, "controller ready pid 4001") || !strings.Contains(v, "link connected") {
		t.Errorf("status bar does not show the live controller:\n%s", v)
	}
	relay(live.ConnState{Phase: live.ConnDisconnected, Err: &live.Error{Code: "unavailable"}})
	view := m.View()
	for _, s := range []string{"The connection to the controller was lost", "Starting a successor in 1s (try 1 of 5)", "ctrl+r", "Lost the connection"} {
		if !strings.Contains(view, s) {
			t.Errorf("loss not reported, lacks %q:\n%s", s, view)
		}
	}
	if !m.LinkState().CanStart() {
		t.Fatal("no way to start a controller after the loss")
	}
	press(t, m, "ctrl+r")
	if ctrl.started != 2 || m.LinkState().Phase != link.Waiting {
		t.Fatalf("ctrl+r: %d starts, phase %v; want a second start", ctrl.started, m.LinkState().Phase)
	}
	_, cmd = m.Update(live.ExitedMsg{PID: 4002, Exit: live.Exit{Code: 2, Output: `daokit: unknown command "controller"`}})
	runQuick(m, cmd)
	if v := m.View(); !strings.Contains(v, "The controller exited with status 2, saying: daokit: unknown command") {
		t.Errorf("exit not reported:\n%s", v)
	}
}

func TestLinkFindsLiveController(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{probe: live.Probe{Live: true, PID: 777}}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 120, 40)
	if st := m.LinkState(); st.Phase != link.Connecting || st.PID != 777 || ctrl.started != 0 {
		t.Fatalf("phase %v pid %d starts %d; want connecting to 777 without a start", st.Phase, st.PID, ctrl.started)
	}
}

func TestLinkStartFailure(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{startE: errors.New("exec: no such file")}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 120, 40)
	if st := m.LinkState(); st.Phase != link.Failed || !st.CanStart() {
		t.Fatalf("phase %v, want failed with a way to retry", st.Phase)
	}
	if !strings.Contains(m.View(), "Could not start a controller") {
		t.Errorf("failure not shown:\n%s", m.View())
	}
}

func TestWorkerDigestAndRunStates(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.Relay = newFakeRelay()
	m := newTestModel(t, opts, 160, 48)
	send := func(u live.RelayUpdate) {
		_, cmd := m.Update(live.RelayMsg{Update: u})
		runQuick(m, cmd)
	}
	send(live.RelayUpdate{Route: &live.Route{TaskID: "T", RunID: "R", ActiveLane: "worker", ActiveStep: "S1", NextAction: "wait_for_worker"}})
	send(live.RelayUpdate{Run: &live.RunState{StepID: "S1", State: "generating"}})
	for i := range 10 {
		send(live.RelayUpdate{Output: &live.OutputLine{TaskID: "T", RunID: "R", StepID: "S1", Line: fmt.Sprintf("line %d \x1b[31mred\x1b[0m", i)}})
	}
	view := m.View()
	for _, s := range []string{"step S1: generating", "worker output, step S1", `line 9 \x1b[31mred\x1b[0m`, "next: waiting for the worker"} {
		if !strings.Contains(view, s) {
			t.Errorf("view lacks %q:\n%s", s, view)
		}
	}
	if strings.Contains(view, "line 0 ") || strings.Contains(view, "\x1b[31m") {
		t.Error("digest keeps old lines or sends the worker's escape codes to the terminal")
	}
}

func TestConversationScrollback(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	for i := range 200 {
		_, cmd := m.Update(conversation.NoteMsg{Kind: conversation.KindSystem, At: fixedNow, Text: fmt.Sprintf("note %03d", i)})
		runQuick(m, cmd)
	}
	focusOn(t, m, "conversation")
	if !strings.Contains(m.View(), "note 199") {
		t.Fatal("newest note not at the bottom")
	}
	press(t, m, "pgup", "pgup")
	if strings.Contains(m.View(), "note 199") || !strings.Contains(m.View(), "scrolled back") {
		t.Error("page up did not scroll back")
	}
	press(t, m, "end")
	if !strings.Contains(m.View(), "note 199") {
		t.Error("end did not return to the newest note")
	}
}

// TestStatusIsAnsweredInTheConversation: /status gets an answer in words
// (route, run state, last event), and the route bar and pipeline pane
// say "cancelled" for a run the person cancelled, not FAILED.
func TestStatusIsAnsweredInTheConversation(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		opts := testOptions(lang)
		opts.Relay = newFakeRelay()
		m := newTestModel(t, opts, 200, 60)
		feed(m, fixtureUpdate(5))
		u := pipelineAt(ledger.StatusFailed, "retry_or_cancel", time.Minute, runState("cancelled", "WORKER_CANCELLED"))
		feed(m, u)
		typeText(m, "/status")
		press(t, m, "enter")
		env := m.env
		view := m.View()
		cancelled := env.T("tui.route.cancelled")
		for _, s := range []string{env.T("tui.route.field", "Key", env.T("tui.route.next"), "Value", cancelled),
			env.Labels.Or("vocab.state", "cancelled"), "DK-1A2B3C4D"} {
			if !strings.Contains(view, s) {
				t.Errorf("%s: view lacks %q:\n%s", lang, s, view)
			}
		}
		for _, s := range []string{"FAILED", "retry_or_cancel"} {
			if strings.Contains(view, s) {
				t.Errorf("%s: view still says %q:\n%s", lang, s, view)
			}
		}
		// The route bar, the pipeline, and the answer's state and next.
		if n := strings.Count(view, env.Labels.Or("vocab.state", "cancelled")); n < 4 {
			t.Errorf("%s: /status answer lacks the cancelled run (%d mentions):\n%s", lang, n, view)
		}
	}
}
