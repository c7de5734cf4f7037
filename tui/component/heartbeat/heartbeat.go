// Package heartbeat is the heartbeat pane: the ledger's liveness judged
// by the rule `daokit check` uses (liveness.LedgerSignals) in its colour, the
// age of the last sign of life against the warning and stale thresholds,
// and the reason code. Ages and the verdict move with the window's one
// 1 Hz tick.
package heartbeat

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Model is the heartbeat pane.
type Model struct {
	component.Pane

	hb    ledger.HeartbeatStatus
	has   bool
	stale bool // the file failed to load; hb is the last good value
	now   time.Time

	// The rest of the evidence check weighs: the pipeline (is a run
	// under way), the leases (an interrupted run's) and the newest
	// artifact output. judged is false before a pipeline was read.
	pipeline ledger.PipelineState
	leases   ledger.Leases
	output   time.Time
	judged   bool
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
)

// New returns an empty pane.
func New(env *component.Env) *Model { return &Model{Pane: component.Pane{Env: env}} }

// Status returns the status word shown ("" before the first load).
func (m *Model) Status() string {
	if !m.has {
		return ""
	}
	return m.shown(m.judge())
}

// judge is the ledger's liveness now, by the rule check uses.
func (m *Model) judge() liveness.Health {
	if !m.judged || m.now.IsZero() {
		return liveness.Health{Status: m.hb.Status}
	}
	return liveness.JudgeLedger(m.now, liveness.LedgerThresholds(&m.hb), &m.pipeline, &m.hb, &m.leases, m.output)
}

// shown is the word the pane shows for a verdict: check's word, except
// that a live run keeps the ledger's RUNNING when the file says so (the
// same state in the contract's vocabulary) and a run that waits for a
// person keeps the controller's BLOCKED.
func (m *Model) shown(h liveness.Health) string {
	switch {
	case !m.judged:
		return m.hb.Status
	case m.hb.Status == ledger.HeartbeatBlocked:
		return ledger.HeartbeatBlocked
	case h.Status == liveness.HealthActive && m.hb.Status == ledger.HeartbeatRunning:
		return ledger.HeartbeatRunning
	}
	return h.Status
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
	case live.TickMsg:
		m.now = msg.Now
	case live.LedgerMsg:
		s := msg.Update.Snapshot
		if s == nil {
			return m, nil
		}
		if m.now.IsZero() {
			m.now = msg.Update.ReadAt
		}
		m.has = s.Heartbeat.HasValue()
		m.hb, m.stale = s.Heartbeat.Value, s.Heartbeat.Stale
		m.pipeline, m.leases, m.output = s.Pipeline.Value, s.Leases.Value, msg.Update.Output
		m.judged = s.Pipeline.HasValue()
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	return m.Frame("tui.pane.heartbeat", "", m.stale, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	if !m.has {
		return []string{" " + st.Muted.Render(env.T("tui.heartbeat.none"))}
	}
	hb := m.hb
	h := m.judge()
	shown := m.shown(h)
	age, known := m.age(h)
	word := st.ToneStyle(component.HeartbeatTone(shown)).Render(env.Clean(shown))
	status := " " + word
	unwritten := known && m.unwritten(age)
	switch {
	case unwritten:
		// The file says RUNNING, but nobody has written it for longer
		// than the stale threshold: its own label ("worker alive")
		// would contradict the age, so the pane says what it knows.
		word = st.Muted.Render(env.Clean(hb.Status))
		status = " " + word + " " + st.ToneStyle(theme.ToneBad).Render(env.T("tui.heartbeat.unwritten", "Age", env.Duration(age)))
	default:
		if l := env.Labels.Get(component.KindHeartbeat, shown); l != "" && m.verdict(age) == "" {
			status += " " + st.Muted.Render(l)
		}
	}
	lines := []string{status}

	switch {
	case !known:
		lines = append(lines, " "+st.Muted.Render(env.T("tui.heartbeat.no_beat")))
	default:
		ageLine := " " + env.T("tui.heartbeat.age", "Age", env.Duration(age))
		if v := m.verdict(age); v != "" && !unwritten {
			ageLine += " " + v
		}
		lines = append(lines, ageLine)
	}
	if hb.WarningAfterSeconds > 0 || hb.StaleAfterSeconds > 0 {
		lines = append(lines, m.gauge(age, known))
	}
	code := hb.ReasonCode
	if shown != hb.Status && shown != ledger.HeartbeatBlocked {
		code = h.ReasonCode // the verdict's own reason, not the file's
	}
	if code == "" {
		return lines
	}
	if len(lines) >= m.Height-1 {
		// No row for the reason: it replaces the status label, which it
		// explains better.
		lines[0] = " " + word + " " + st.Muted.Render(env.Clean(code))
		return lines
	}
	reason := " " + st.Muted.Render(env.T("tui.heartbeat.reason")+" ") + env.Clean(code)
	if l := env.Labels.Get(component.KindReason, code); l != "" {
		reason += " " + st.Muted.Render(l)
	}
	return append(lines, reason)
}

// age is the time since the last sign of life the verdict weighed (a
// beat, an interrupted run's lease beat, an output), else since the beat
// the file names, if any.
func (m *Model) age(h liveness.Health) (time.Duration, bool) {
	if m.now.IsZero() {
		return 0, false
	}
	if !h.SignalAt.IsZero() {
		return max(m.now.Sub(h.SignalAt), 0), true
	}
	t, err := ledger.ParseTime(m.hb.LastHeartbeatAt)
	if err != nil {
		return 0, false
	}
	return max(m.now.Sub(t), 0), true
}

// unwritten reports a file that says RUNNING while its last beat is older
// than the stale threshold: nobody is writing it any more.
func (m *Model) unwritten(age time.Duration) bool {
	hb := m.hb
	return hb.Status == ledger.HeartbeatRunning && hb.StaleAfterSeconds > 0 && age >= secs(hb.StaleAfterSeconds)
}

// verdict is the window's own reading of the age against the thresholds:
// a file that still says RUNNING while nothing has beaten for longer than
// the stale threshold is itself a sign (its writer may be gone).
func (m *Model) verdict(age time.Duration) string {
	st := m.Env.Styles
	hb := m.hb
	if hb.Status != ledger.HeartbeatRunning {
		return ""
	}
	switch {
	case hb.StaleAfterSeconds > 0 && age >= time.Duration(hb.StaleAfterSeconds)*time.Second:
		return st.ToneStyle(theme.ToneBad).Render(m.Env.T("tui.heartbeat.over_stale"))
	case hb.WarningAfterSeconds > 0 && age >= time.Duration(hb.WarningAfterSeconds)*time.Second:
		return st.ToneStyle(theme.ToneWarn).Render(m.Env.T("tui.heartbeat.over_warning"))
	}
	return ""
}

// gauge draws the age as a bar that fills up to the stale threshold,
// followed by the thresholds.
func (m *Model) gauge(age time.Duration, known bool) string {
	env := m.Env
	st := env.Styles
	hb := m.hb
	var th []string
	if hb.WarningAfterSeconds > 0 {
		th = append(th, env.T("tui.heartbeat.warn_at", "D", env.Duration(secs(hb.WarningAfterSeconds))))
	}
	if hb.StaleAfterSeconds > 0 {
		th = append(th, env.T("tui.heartbeat.stale_at", "D", env.Duration(secs(hb.StaleAfterSeconds))))
	}
	thresholds := strings.Join(th, st.Glyphs.Sep)
	room := m.Width - 4 - text.Width(thresholds)
	barW := min(room, 24)
	// The gauge means something only while a worker should be beating.
	if barW < 6 || !known || hb.StaleAfterSeconds <= 0 || m.Status() == ledger.HeartbeatIdle {
		return " " + st.Muted.Render(thresholds)
	}
	limit := secs(hb.StaleAfterSeconds)
	filled := min(int(int64(barW)*int64(age)/int64(limit)), barW)
	tone := theme.ToneOK
	switch {
	case age >= limit:
		tone = theme.ToneBad
	case hb.WarningAfterSeconds > 0 && age >= secs(hb.WarningAfterSeconds):
		tone = theme.ToneWarn
	}
	bar := st.ToneStyle(tone).Render(strings.Repeat(st.Glyphs.GaugeFull, filled)) +
		st.Muted.Render(strings.Repeat(st.Glyphs.GaugeNone, barW-filled))
	return " " + bar + " " + st.Muted.Render(thresholds)
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

// ShortHelp implements help.KeyMap; the pane has no keys of its own.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
