package conversation

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
)

var at = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func env(lang string) *component.Env { return componenttest.Env(lang, at) }

// TestNotesRedrawInTheNewLanguage: notes told by catalog id and the
// controller's run states are drawn in the language of the moment, and
// survive a save and restore; a message whose answer never came is
// marked so after the restore.
func TestNotesRedrawInTheNewLanguage(t *testing.T) {
	t.Parallel()
	m := New(env("en"))
	m.SetSize(100, 12)
	m.Update(NoteMsg{Kind: KindSystem, ID: "tui.conversation.started", Args: []string{"PID", "4242"}})
	m.Update(live.RelayMsg{Update: live.RelayUpdate{Run: &live.RunState{StepID: "S1", State: "generating"}}})
	m.Update(SentMsg{Seq: 1, At: at, Text: "修复登录"})
	if v := m.View(); !strings.Contains(v, "step S1: generating") || !strings.Contains(v, "4242") {
		t.Fatalf("English view:\n%s", v)
	}
	m.Update(component.EnvMsg{Env: env("zh-CN")})
	if v := m.View(); !strings.Contains(v, "步骤 S1：生成中") || strings.Contains(v, "generating") {
		t.Fatalf("not redrawn in Chinese:\n%s", v)
	}
	saved := m.Saved()
	again := New(env("en"))
	again.SetSize(100, 12)
	again.Update(RestoreMsg{Entries: saved})
	v := again.View()
	if !strings.Contains(v, "修复登录") || !strings.Contains(v, "answer was not seen") || !strings.Contains(v, "step S1: generating") {
		t.Errorf("restored view:\n%s", v)
	}
}
