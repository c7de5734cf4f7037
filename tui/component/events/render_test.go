package events

import (
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/theme"
)

func testEnv(lang string) *component.Env {
	styles := theme.NewStyles(lipgloss.NewRenderer(nil), theme.DefaultTheme(), theme.UnicodeGlyphs())
	return component.NewEnv(i18n.MustNew(lang), styles, component.Settings{Now: time.Now})
}

// Worker-protocol lines in WORKER_OUTPUT events read as what they say, in
// the reader's language; ordinary lines stay as they are.
func TestWorkerOutputSummaryDescribesProtocolLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang, line, want string
	}{
		{i18n.English, `@daokit {"type":"progress","message":"Reading main.go"}`, "Reading main.go"},
		{i18n.English, `@daokit {"type":"tool","name":"edit","detail":"main.go"}`, "tool · edit main.go"},
		{i18n.Chinese, `@daokit {"type":"result","summary":"2 files"}`, "结果 · 2 files"},
		{i18n.English, `ok  example.com/project 0.8s`, `ok  example.com/project 0.8s`},
	}
	for _, tt := range tests {
		ev := ledger.NewEvent(time.Now(), "T", "R", "S1", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "lines", []any{ledger.ObjectOf("stream", "stdout", "line", tt.line)}))
		if got := describeLine(testEnv(tt.lang), lastLine(ev.Payload)); got != tt.want {
			t.Errorf("%s %q: got %q, want %q", tt.lang, tt.line, got, tt.want)
		}
	}
}
