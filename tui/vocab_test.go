package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// TestLiveOutputFollowsTheWindowsLanguage: a controller started in
// Chinese sends an agent's line with its parts, a refused merge with its
// reason code and a budget warning with its message; the window words
// them in its own language, and F2 rewords the lines already shown.
func TestLiveOutputFollowsTheWindowsLanguage(t *testing.T) {
	t.Parallel()
	zh := i18n.MustNew(i18n.Chinese)
	rec := transcript.Record{Events: []transcript.Event{{Type: transcript.EventSession, ID: "sess-42"}}}
	lines := []relay.OutputLine{
		{StepID: "S1", Line: transcript.DescribeRecord(zh, rec), Parts: say.ToRelay(transcript.PartsOf(rec))},
		{StepID: "S1", Line: vocab.ReasonMergeConflict.Label(zh), Reason: string(vocab.ReasonMergeConflict)},
		{StepID: "S1", Line: zh.T("controller.budget.warning", "Spent", "$1.0000", "Budget", "$1.2500", "Percent", "80"),
			Message: "controller.budget.warning", Args: map[string]string{"Spent": "$1.0000", "Budget": "$1.2500", "Percent": "80"}},
	}
	opts := testOptions("en")
	opts.Relay = newFakeRelay()
	m := newTestModel(t, opts, 200, 48)
	send := func(n relay.Notice) {
		_, cmd := m.Update(live.RelayMsg{Update: noticeOf(n)})
		runQuick(m, cmd)
	}
	send(relay.Notice{Kind: relay.NoticeRoute, Route: &relay.Route{TaskID: "T", RunID: "R", ActiveLane: "worker", ActiveStep: "S1", NextAction: "wait_for_worker"}})
	for i := range lines {
		send(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &lines[i]})
	}
	check := func(loc *i18n.Localizer, other *i18n.Localizer) {
		t.Helper()
		view := m.View()
		for i := range lines {
			want := say.FromRelay(lines[i]).Words(loc)
			if !strings.Contains(view, want) {
				t.Errorf("%s window lacks %q:\n%s", loc.Lang(), want, view)
			}
			if gone := say.FromRelay(lines[i]).Words(other); gone != want && strings.Contains(view, gone) {
				t.Errorf("%s window still shows %q", loc.Lang(), gone)
			}
		}
	}
	en := i18n.MustNew(i18n.English)
	check(en, zh)
	if !strings.Contains(m.View(), "sess-42") {
		t.Error("the session id is lost")
	}
	press(t, m, "f2")
	check(zh, en)
	press(t, m, "f2")
	check(en, zh)
}

// TestRefusedControlIsWorded: a /cancel the controller refuses for a
// blocked run reads as a sentence with the status worded, not as
// "not_running (BLOCKED)", in both languages.
func TestRefusedControlIsWorded(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Supported() {
		opts := testOptions(lang)
		fr := newFakeRelay()
		fr.controlE = &live.Error{Code: string(vocab.ResultNotRunning), Detail: string(vocab.StatusBlocked)}
		opts.Relay = fr
		m := newTestModel(t, opts, 160, 48)
		feed(m, fixtureUpdate(5))
		feed(m, pipelineAt(ledger.StatusBlocked, "await_user", time.Minute, runState("failed", "RESTART_LIMIT_REACHED")))
		typeText(m, "/cancel")
		press(t, m, "enter")
		view := m.View()
		want := vocab.ResultNotRunning.Label(m.env.Loc, string(vocab.StatusBlocked))
		if !strings.Contains(view, want) {
			t.Errorf("%s: the refusal does not read %q:\n%s", lang, want, view)
		}
		if strings.Contains(view, "not_running") {
			t.Errorf("%s: the refusal shows its code:\n%s", lang, view)
		}
		got := component.ErrorText(m.env, &live.Error{Code: string(vocab.ResultNotWaiting), Detail: string(vocab.StateCompleted)})
		if strings.Contains(got, "not_waiting") || (lang != i18n.English && strings.Contains(got, "completed")) {
			t.Errorf("%s: a refused abandon reads %q", lang, got)
		}
		if got := component.ErrorText(m.env, errors.New("plain")); got != "plain" {
			t.Errorf("%s: other errors read %q", lang, got)
		}
	}
}

// TestEveryReasonIsWordedInTheConversation: a run that ended for any
// reason code of the vocabulary says why in words, in both languages
// (nine codes once showed raw, "failed (WORKTREE_FAILED)", because the
// window kept its own list of labels).
func TestEveryReasonIsWordedInTheConversation(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Supported() {
		opts := testOptions(lang)
		opts.Relay = newFakeRelay()
		m := newTestModel(t, opts, 240, 60)
		for _, code := range vocab.Reasons() {
			_, cmd := m.Update(live.RelayMsg{Update: noticeOf(relay.Notice{Kind: relay.NoticeRunState,
				Run: &relay.RunState{TaskID: "T", RunID: "R", StepID: "S1", State: string(vocab.StateFailed), Reason: string(code)}})})
			runQuick(m, cmd)
			view := m.View()
			if want := code.Label(m.env.Loc); !strings.Contains(view, want) {
				t.Errorf("%s: the conversation lacks %q for %s", lang, want, code)
			}
			if strings.Contains(view, "("+string(code)+")") || strings.Contains(view, "（"+string(code)+"）") {
				t.Errorf("%s: the conversation shows %s raw", lang, code)
			}
		}
	}
}

// TestStepAndLeaseWordsFollowTheWindow: a step blocked by a loop's last
// iteration (stored failed:max_iterations_reached) and an active lease
// (stored ACTIVE) read in the window's words from package vocab, never as
// "too many restarts", and F2 rewords them.
func TestStepAndLeaseWordsFollowTheWindow(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 200, 48)
	stored := vocab.StepFailed.With(string(vocab.ReasonMaxIterations))
	u := pipelineAt(ledger.StatusBlocked, string(vocab.NextAwait), time.Minute)
	u.Snapshot.Pipeline.Value.RoleLifecycle = u.Snapshot.Pipeline.Value.RoleLifecycle.With("step:S2", string(stored))
	feed(m, u)
	check := func(loc, other *i18n.Localizer) {
		t.Helper()
		view := m.View()
		for _, want := range []string{stored.Label(loc), vocab.LeaseStatusActive.Label(loc)} {
			if !strings.Contains(view, want) {
				t.Errorf("%s window lacks %q:\n%s", loc.Lang(), want, view)
			}
		}
		if gone := stored.Label(other); strings.Contains(view, gone) {
			t.Errorf("%s window still shows %q", loc.Lang(), gone)
		}
		if strings.Contains(view, vocab.ReasonRestartLimit.Label(loc)) {
			t.Errorf("%s window says the restart limit for a max-iterations block:\n%s", loc.Lang(), view)
		}
	}
	en, zh := i18n.MustNew(i18n.English), i18n.MustNew(i18n.Chinese)
	check(en, zh)
	press(t, m, "f2")
	check(zh, en)
}
