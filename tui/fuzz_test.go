package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// FuzzWindow feeds the window arbitrary ledger text, worker output and
// keys at arbitrary sizes: it must never panic, never draw a line wider
// than the terminal, and never pass a control character of that text to
// the terminal (the test's styles draw no escapes of their own).
func FuzzWindow(f *testing.F) {
	f.Add(uint8(80), uint8(24), "kkG\tj s t x\r\x1b", "修复\x1b[2J登录…", "STEP_FAILED")
	f.Add(uint8(20), uint8(5), "?L", "\x00\xff\xfe", "")
	f.Add(uint8(200), uint8(60), "\t\t\r", "👍🏽 a\u0301 \t tab", "HEARTBEAT_STALE")
	f.Add(uint8(160), uint8(48), "", "+x\x1b[1A\x1b[2K\x1b]52;c;aGk=\a\u202e\x9b\u009b", "\x1b]2;t\a")
	f.Fuzz(func(t *testing.T, w, h uint8, keys, text, typ string) {
		m := newTestModel(t, testOptions("zh-CN"), int(w)%220+1, int(h)%70+1)
		snap := fixtureSnapshot()
		snap.Pipeline.Value.Goal = text
		snap.Pipeline.Value.Steps[0].Title = text
		snap.Heartbeat.Value.Status = typ
		snap.Heartbeat.Value.ReasonCode = text
		snap.Leases.Value.Leases[0].Lane = text
		ev := ledger.NewEvent(fixedNow, text, text, text, typ, typ, ledger.ObjectOf("message", text, "lines", []map[string]string{{"line": text}}))
		feed(m, live.LedgerUpdate{Snapshot: snap, Events: []ledger.Event{ev, ev}})
		_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Output: &live.OutputLine{StepID: text, Line: text}}})
		runQuick(m, cmd)
		for _, r := range keys {
			var msg tea.KeyMsg
			switch r {
			case '\t':
				msg = tea.KeyMsg{Type: tea.KeyTab}
			case '\r':
				msg = tea.KeyMsg{Type: tea.KeyEnter}
			case '\x1b':
				msg = tea.KeyMsg{Type: tea.KeyEsc}
			default:
				msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
			}
			_, cmd := m.Update(msg)
			runQuick(m, cmd)
		}
		frame := m.View()
		checkFrame(t, frame, int(w)%220+1, int(h)%70+1, "fuzz")
		for _, r := range frame {
			if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r == '\u202e' {
				t.Fatalf("the frame holds control %U:\n%q", r, frame)
			}
		}
	})
}
