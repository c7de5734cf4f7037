package events

import (
	"strings"
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

// A step whose calls were denied names them in its summary, in the
// reader's language, next to its reason.
func TestStepEndSummaryNamesDeniedCalls(t *testing.T) {
	t.Parallel()
	ev := ledger.NewEvent(time.Now(), "T", "R", "S1", ledger.EventStepFailed, ledger.SeverityError,
		ledger.ObjectOf("reason_code", "AGENT_PERMISSION_DENIED", "denied", []any{
			ledger.ObjectOf("tool", "Edit", "target", "main.go"), ledger.ObjectOf("tool", "Bash", "target", "go build")}))
	for lang, want := range map[string]string{i18n.English: "denied · Edit main.go; Bash go build", i18n.Chinese: "被拒绝 · Edit main.go; Bash go build"} {
		if got := summary(testEnv(lang), &ev); !strings.Contains(got, want) {
			t.Errorf("%s: summary %q lacks %q", lang, got, want)
		}
	}
}
