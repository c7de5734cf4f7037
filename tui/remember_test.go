package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/relayctx"
)

// TestQuitAndReopenRemembers: what was said and sent comes back when the
// window opens again on the same root (saved on quit), and a language
// switch redraws the remembered lines in the new language.
func TestQuitAndReopenRemembers(t *testing.T) {
	t.Parallel()
	store := relayctx.FileStore{Path: filepath.Join(t.TempDir(), "window.json")}
	opts := testOptions("en")
	opts.Relay, opts.Memory = newFakeRelay(), store
	m := newTestModel(t, opts, 160, 48)
	_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Run: &live.RunState{StepID: "S1", State: "generating"}}})
	runQuick(m, cmd)
	typeText(m, "修复登录页面")
	press(t, m, "enter")
	if !sendQuits(m, keyMsg("ctrl+c")) {
		t.Fatal("ctrl+c did not quit")
	}

	m2 := newTestModel(t, opts, 160, 48)
	v := m2.View()
	for _, s := range []string{"修复登录页面", "step S1: generating", "delivered"} {
		if !strings.Contains(v, s) {
			t.Errorf("reopened window lacks %q:\n%s", s, v)
		}
	}
	press(t, m2, "up")
	if got := m2.input.Value(); got != "修复登录页面" {
		t.Errorf("history after reopening: %q", got)
	}
	press(t, m2, "f2")
	v = m2.View()
	if !strings.Contains(v, "步骤 S1：生成中") || strings.Contains(v, "step S1: generating") {
		t.Errorf("remembered run state not redrawn in Chinese:\n%s", v)
	}
}
