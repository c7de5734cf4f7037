package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// allControls are the controls a banner may suggest.
var allControls = []projection.Control{projection.ControlAccept, projection.ControlReject,
	projection.ControlRetry, projection.ControlCancel}

// TestBannerSuggestsWhatTheProjectionSays walks every state the pipeline
// and the route can leave a run in, through the root's Update, in both
// languages: the banner offers exactly the controls the projection says
// work for that run's need (and none when nothing is needed), and the
// title says the person is needed exactly then.
func TestBannerSuggestsWhatTheProjectionSays(t *testing.T) {
	t.Parallel()
	type state struct{ status, next string }
	var states []state
	for _, s := range vocab.Statuses() {
		states = append(states, state{string(s), string(vocab.NextWorking)})
	}
	for _, n := range vocab.Nexts() {
		states = append(states, state{string(vocab.StatusExecute), string(n)})
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, s := range states {
			t.Run(lang+"/"+s.status+"/"+s.next, func(t *testing.T) {
				t.Parallel()
				term := &bellTerm{}
				opts := testOptions(lang)
				opts.Terminal = term
				m := newTestModel(t, opts, 200, 48)
				feed(m, pipelineAt(s.status, s.next, 0))
				p := fixturePipeline()
				need := projection.Project(projection.Settled(projection.Entry{TaskID: p.TaskID, RunID: p.RunID},
					vocab.Status(s.status), vocab.Next(s.next)), true).Need
				banner := m.banner.View()
				want := map[projection.Control]bool{}
				for _, c := range need.Suggest() {
					want[c] = true
				}
				for _, c := range allControls {
					if has := strings.Contains(banner, "/"+string(c)); has != want[c] {
						t.Errorf("need %v: banner offers /%s = %v, want %v:\n%s", need, c, has, want[c], banner)
					}
				}
				if need != projection.NeedNone && !strings.Contains(banner, p.TaskID) {
					t.Errorf("need %v: the banner does not name the task:\n%s", need, banner)
				}
				titles := term.titles()
				needTitle := m.env.T("tui.attention.title_need")
				if got := len(titles) > 0 && titles[len(titles)-1] == needTitle; got != (need != projection.NeedNone) {
					t.Errorf("need %v: titles %q", need, titles)
				}
			})
		}
	}
}

// TestOneWordForARunEverywhere: a run dropped while it waited reaches
// the window by the relay (the conversation) and by the ledger (the task
// list, the pipeline, the banner); every surface words it as the
// projection does (abandoned, not failed), and none calls for the person.
func TestOneWordForARunEverywhere(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(lang)
			opts.Relay = newFakeRelay()
			m := newTestModel(t, opts, 200, 48)
			p := fixturePipeline()
			relay := func(state, reason string) {
				_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Run: &live.RunState{TaskID: p.TaskID, RunID: p.RunID,
					StepID: "S2", Lane: "worker", State: state, Reason: reason}}})
				runQuick(m, cmd)
			}
			relay("waiting", "")
			relay("failed", string(vocab.ReasonAbandoned))
			feed(m, live.LedgerUpdate{Events: []ledger.Event{
				sys(-time.Minute, p.TaskID, p.RunID, "S2", "INSTRUCTION_RECEIVED", "message_id", "m1", "text", "fix it"),
				runState("waiting", ""),
				runState("failed", string(vocab.ReasonAbandoned)),
				runFinished(ledger.StatusFailed, string(vocab.ReasonAbandoned)),
			}})
			feed(m, pipelineAt(ledger.StatusFailed, "none", time.Minute))

			abandoned := m.env.Labels.Or("vocab.reason", string(vocab.ReasonAbandoned))
			failed := m.env.Labels.Or("vocab.state", "failed")
			failedStatus := m.env.Labels.Or("vocab.status", "FAILED")
			conv := m.conv.View()
			stepLine := lineWith(conv, "S2")
			if !strings.Contains(stepLine, abandoned) || strings.Contains(stepLine, failed+" (") {
				t.Errorf("conversation's step line %q, want %q alone", stepLine, abandoned)
			}
			if pipe := m.pipe.View(); !strings.Contains(pipe, abandoned) || strings.Contains(pipe, failedStatus) {
				t.Errorf("pipeline pane does not say abandoned:\n%s", pipe)
			}
			if b := m.banner.View(); strings.Contains(b, "/retry") {
				t.Errorf("the banner calls for an abandoned run:\n%s", b)
			}
			press(t, m, "f4")
			// The state column is narrow: the word's start says it.
			row := lineWith(m.View(), "fix it")
			if !strings.Contains(row, string([]rune(abandoned)[:4])) || strings.Contains(row, "!") {
				t.Errorf("task row %q, want %q without a needs-you mark", row, abandoned)
			}
		})
	}
}
