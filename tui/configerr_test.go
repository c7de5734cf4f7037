package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
)

// brokenToml has four problems, each worded in a long sentence.
const brokenToml = `
[heartbeat]
check_interval = "x"
warning_after = "-1s"

[[lanes]]
name = "w"
kind = "nosuch"

[restart]
max_restarts = -3
`

// configProblems parses brokenToml as the window's controller start
// does (see cmd/daokit configProblems).
func configProblems(t *testing.T) []live.Problem {
	t.Helper()
	_, err := config.Parse([]byte(brokenToml), "daokit.toml", t.TempDir())
	es := config.AsErrors(err)
	if len(es) < 3 {
		t.Fatalf("want several problems, got %v", err)
	}
	out := make([]live.Problem, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// flatText joins the screen's lines and collapses runs of blanks, so that a
// sentence wrapped over lines reads as one.
func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestAConfigErrorIsShownWholeAndNotRetried: a controller that refused
// to start for a bad daokit.toml: the banner lists every problem in
// full (wrapped at 80 columns, not cut), says to run daokit check, and
// the window starts no successor by itself (a retry cannot fix a file);
// F2 rewords the problems; ctrl+r still starts one.
func TestAConfigErrorIsShownWholeAndNotRetried(t *testing.T) {
	t.Parallel()
	ctrl := &fakeControllers{}
	opts := testOptions("en")
	opts.Relay, opts.Controllers = newFakeRelay(), ctrl
	m := newTestModel(t, opts, 80, 24)
	problems := configProblems(t)
	_, cmd := m.Update(live.ExitedMsg{PID: 4001, Exit: live.Exit{Code: 1, Output: "E_CONFIG_INVALID: the last one", Config: problems}})
	runQuick(m, cmd)
	for _, lang := range []string{i18n.English, i18n.Chinese} {
		if lang == i18n.Chinese {
			press(t, m, "f2")
		}
		loc := i18n.MustNew(lang)
		v := m.View()
		for _, p := range problems {
			if want := flatText(p.Localize(loc)); !strings.Contains(flatText(v), want) {
				t.Errorf("%s: the banner lacks the whole problem %q:\n%s", lang, want, v)
			}
		}
		if !strings.Contains(v, "daokit check") {
			t.Errorf("%s: no hint to run daokit check:\n%s", lang, v)
		}
		for i, line := range strings.Split(v, "\n") {
			if w := text.Width(line); w > 80 {
				t.Errorf("%s: line %d is %d cells wide: %q", lang, i, w, line)
			}
		}
	}
	tickAt(m, time.Hour)
	if ctrl.started != 1 || m.LinkState().Phase != link.Exited {
		t.Fatalf("the window retried a controller a bad daokit.toml stops: %d starts, phase %v", ctrl.started, m.LinkState().Phase)
	}
	press(t, m, "ctrl+r")
	if ctrl.started != 2 {
		t.Errorf("ctrl+r did not start a controller after the config error")
	}
}
