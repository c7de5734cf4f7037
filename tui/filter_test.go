package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"
)

// unknownCSI stands in for Bubble Tea's unexported unknownCSISequenceMsg,
// which prints the same way.
type unknownCSI []byte

func (u unknownCSI) String() string { return "?CSI" + fmtBytes(u[2:]) + "?" }

func fmtBytes(b []byte) string {
	s := "["
	for i, c := range b {
		if i > 0 {
			s += " "
		}
		s += itoa(int(c))
	}
	return s + "]"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestFilterTurnsShiftEnterIntoNewline(t *testing.T) {
	t.Parallel()
	for _, seq := range []string{"\x1b[13;2u", "\x1b[27;2;13~"} {
		got := Filter(nil, unknownCSI(seq))
		k, ok := got.(tea.KeyMsg)
		if !ok || k.Type != tea.KeyEnter || !k.Alt {
			t.Errorf("%q became %#v, want alt+enter", seq, got)
		}
	}
	if got := Filter(nil, unknownCSI("\x1b[99;5u")); got == nil {
		t.Error("other sequences must pass through")
	}
	if got, ok := Filter(nil, tea.KeyMsg{Type: tea.KeyEnter}).(tea.KeyMsg); !ok || got.Alt || got.Type != tea.KeyEnter {
		t.Error("plain enter changed")
	}
}

func TestWidthPolicyIgnoresLocale(t *testing.T) {
	// Not parallel: the policy sets go-runewidth's global condition.
	t.Cleanup(func() { ApplyWidthPolicy(func(string) string { return "" }) })
	env := map[string]string{"LANG": "zh_CN.UTF-8"}
	if wide := ApplyWidthPolicy(func(k string) string { return env[k] }); wide {
		t.Fatal("a Chinese locale alone opted into wide ambiguous characters")
	}
	if got := runewidth.StringWidth("…─"); got != 2 {
		t.Errorf("ambiguous characters measure %d cells under zh_CN, want 2 (one each)", got)
	}
	env["RUNEWIDTH_EASTASIAN"] = "1"
	if wide := ApplyWidthPolicy(func(k string) string { return env[k] }); !wide {
		t.Fatal("RUNEWIDTH_EASTASIAN=1 not honoured")
	}
}
