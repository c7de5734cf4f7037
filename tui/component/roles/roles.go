// Package roles is the roles pane: one line per role of the team (seed
// 003) with its Lead's health (alive, WARNING, STALE, down), how far its
// cursor lags the outbox, its claimed issues, and its Workers running,
// queued and blocked with what blocks them. It shows only when the root
// has a workflow.toml; the rows are read by a command on the 1 Hz tick,
// never in Update or View.
package roles

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/live/outboxes"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// LoadedMsg carries the roles read from the root (Has: the root has a
// team at all). Problems say why the team is off or blind (workflow.toml
// errors, a refused outbox), one line each in the reader's language.
type LoadedMsg struct {
	Views    []roster.RoleView
	Problems []string
	Has      bool
	Err      error
}

// Model is the roles pane.
type Model struct {
	component.Pane

	root     string
	life     context.Context
	obs      *outboxes.Reader // how the outbox is read
	loading  bool             // a read is in flight
	views    []roster.RoleView
	problems []string
	has      bool
	stale    bool
}

var _ component.Component = (*Model)(nil)

// New returns the pane for root (empty: no team, nothing is read). ctx
// bounds the reads its commands do.
func New(ctx context.Context, env *component.Env, root string, obs *outboxes.Reader) *Model {
	return &Model{Pane: component.Pane{Env: env}, root: root, life: ctx, obs: obs}
}

// Has reports whether the root has a team to show.
func (m *Model) Has() bool { return m.has }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
	case live.TickMsg:
		if m.root == "" || m.loading {
			// One read at a time: a hub that answers slowly must not
			// gather a read per tick.
			return m, nil
		}
		m.loading = true
		return m, Load(m.life, m.obs, m.root, msg.Now, m.Env.Loc)
	case LoadedMsg:
		m.loading = false
		m.has, m.problems = msg.Has, msg.Problems
		if msg.Err != nil {
			m.stale = true
		} else {
			m.views, m.stale = msg.Views, false
		}
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// Load reads the team of root: daokit.toml, workflow.toml, the Leads'
// status and exit files and the outbox. A broken workflow.toml or a
// refused outbox is shown, not hidden: the team is off, and the pane
// says why (loc renders the problems). The outbox is read through obs,
// whatever its backend.
func Load(ctx context.Context, obs *outboxes.Reader, root string, now time.Time, loc *i18n.Localizer) tea.Cmd {
	return func() tea.Msg {
		tm, err := obs.Team(root)
		if errors.Is(err, outboxes.ErrNoTeam) {
			return LoadedMsg{}
		}
		if err != nil {
			var problems []string
			if es, ok := err.(team.Errors); ok {
				for _, e := range es {
					// The file's name, not its whole path: the pane is narrow.
					short := *e
					short.File = team.FileName
					problems = append(problems, short.Localize(loc))
				}
			} else {
				problems = append(problems, err.Error())
			}
			return LoadedMsg{Has: true, Problems: problems}
		}
		cfg, wf := tm.Config, tm.Workflow
		var problems []string
		var ob outbox.Backend
		if s, done, err := obs.Open(ctx, wf); err != nil {
			var oe *outbox.OpenError
			if errors.As(err, &oe) {
				problems = append(problems, roster.ExitOf("", 0, err).Text(loc.T))
			} else {
				return LoadedMsg{Has: true, Err: err}
			}
		} else {
			defer done()
			ob = s
		}
		views, err := roster.Views(ctx, wf, ob, cfg.Heartbeat.WarningAfter.Std(), cfg.Heartbeat.StaleAfter.Std(), now)
		return LoadedMsg{Views: views, Problems: problems, Has: true, Err: err}
	}
}

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	info := ""
	if m.has {
		info = m.Env.T("tui.roles.count", "N", strconv.Itoa(len(m.views)))
	}
	return m.Frame("tui.pane.roles", info, m.stale, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	w := max(m.Width-2, 10)
	room := m.Height - 1
	lines := make([]string, 0, len(m.views)+len(m.problems))
	for _, p := range m.problems {
		if len(lines) < room {
			lines = append(lines, " "+st.Paint(theme.ToneBad).Apply(text.Fit(env.T("tui.roles.problem", "Problem", env.Clean(p)), w, env.Tail())))
		}
	}
	if len(m.views) == 0 {
		if len(lines) == 0 {
			return []string{" " + st.Muted.Render(env.T("tui.roles.none"))}
		}
		return lines
	}
	for _, v := range m.views {
		if len(lines) >= room {
			break
		}
		health := env.T("tui.roles.health." + strings.ToLower(v.Health))
		line := env.T("tui.roles.row", "Role", env.Clean(v.Role), "Lag", strconv.FormatInt(v.Lag, 10),
			"Claimed", strconv.Itoa(v.Claimed), "Running", strconv.Itoa(len(v.Running)), "Limit", strconv.Itoa(v.Limit),
			"Queued", strconv.Itoa(len(v.Queued)))
		lines = append(lines, " "+st.Paint(tone(v.Health)).Apply(text.Fit(health, 8, env.Tail()))+" "+
			st.TextPaint.Apply(text.Fit(line, w-9, env.Tail())))
		if v.Health == roster.HealthDown && v.LastExit != nil && len(lines) < room {
			// Why a Lead is down: "down" alone sends a person to the logs.
			lines = append(lines, strings.Repeat(" ", 10)+st.Paint(theme.ToneBad).Apply(
				text.Fit(env.T("tui.roles.exit", "Reason", env.Clean(v.LastExit.Text(env.T))), w-9, env.Tail())))
		}
		if rw := v.RateWait; rw != nil && len(lines) < room {
			// GitHub or GitLab holds the Lead back: its work waits, not stalls.
			lines = append(lines, strings.Repeat(" ", 10)+st.Paint(theme.ToneWarn).Apply(
				text.Fit(env.T("tui.roles.rate_wait", "Service", rw.ServiceName(), "Until", rw.Until.Local().Format("15:04:05"),
					"Reason", env.T("team.github.wait."+strings.ReplaceAll(rw.Reason, "-", "_"))), w-9, env.Tail())))
		}
		if b := blocked(v.Blocked); b != "" && len(lines) < room {
			// What blocks a role's work gets a line of its own: it is what
			// a person looks for.
			lines = append(lines, strings.Repeat(" ", 10)+st.Paint(theme.ToneWarn).Apply(
				text.Fit(env.T("tui.roles.blocked", "List", b), w-9, env.Tail())))
		}
	}
	return lines
}

func tone(h string) theme.Tone {
	switch h {
	case roster.HealthAlive:
		return theme.ToneOK
	case roster.HealthWarning:
		return theme.ToneWarn
	}
	return theme.ToneBad
}

// blocked is "#5←#1,#2 #6←#3".
func blocked(b map[string][]int64) string {
	var parts []string
	for id, deps := range b {
		parts = append(parts, id+"←"+strings.ReplaceAll(outbox.FormatRefs(deps), " ", ""))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// ShortHelp implements help.KeyMap (the pane takes no keys).
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
