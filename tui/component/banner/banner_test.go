package banner

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
)

func env(lang string) *component.Env { return componenttest.Env(lang, time.Time{}) }

// TestBannerSaysWhatHappenedAndWhatToDo: each kind of trouble, told by
// message, reads as a sentence with its detail and what to type, in both
// languages, and the banner clears when told to.
func TestBannerSaysWhatHappenedAndWhatToDo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	for _, lang := range []string{"en", "zh-CN"} {
		e := env(lang)
		cases := []struct {
			msg  any
			want []string
		}{
			{attention.StateMsg{State: attention.State{Need: attention.Blocked, TaskID: "DK-1", Reason: "RESTART_LIMIT_REACHED"}},
				[]string{"DK-1", "/retry", "/cancel", e.Labels.Or(component.KindReason, "RESTART_LIMIT_REACHED")}},
			{link.StateMsg{State: link.State{Phase: link.Exited, Startable: true, Exit: live.Exit{Code: -1, Signal: "SIGKILL"},
				Now: now, Retry: now.Add(2 * time.Second), Tries: 1}},
				[]string{"SIGKILL", "2", "ctrl+r"}},
			{SetMsg{Key: "x", Item: Item{Level: Warn, Text: "disk full"}}, []string{"disk full"}},
		}
		for _, c := range cases {
			m := New(e)
			m.SetSize(200, 3)
			m.Update(c.msg)
			v := m.View()
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("%s %T: banner lacks %q: %q", lang, c.msg, w, v)
				}
			}
			if strings.Contains(v, ": .") || strings.Contains(v, "（）") {
				t.Errorf("%s %T: empty detail: %q", lang, c.msg, v)
			}
		}
	}
	m := New(env("en"))
	m.Update(SetMsg{Key: "x", Item: Item{Text: "gone soon"}})
	m.Update(SetMsg{Key: "x"})
	if m.Height() != 0 {
		t.Errorf("a cleared problem stays: %v", m.Items())
	}
}
