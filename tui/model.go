package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/changes"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/events"
	"github.com/daokit/daokit/tui/component/heartbeat"
	"github.com/daokit/daokit/tui/component/helpview"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/component/issues"
	"github.com/daokit/daokit/tui/component/leases"
	"github.com/daokit/daokit/tui/component/logview"
	"github.com/daokit/daokit/tui/component/pipeline"
	"github.com/daokit/daokit/tui/component/roles"
	"github.com/daokit/daokit/tui/component/routebar"
	"github.com/daokit/daokit/tui/component/statusbar"
	"github.com/daokit/daokit/tui/component/tasks"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/live/outboxes"
	"github.com/daokit/daokit/tui/memory"
	"github.com/daokit/daokit/tui/relayctx"
	"github.com/daokit/daokit/tui/theme"
)

// Model is the window's root: it owns the panes, the focus and the
// layout, and routes messages. Everything a pane shows is decided by the
// pane.
type Model struct {
	opts Options
	// life is the program's lifetime. Bubble Tea v1 gives commands no
	// context, and the feeds' blocking reads must end with the window;
	// Run creates it and cancels it when the program returns, so it is
	// the one context that may live in a struct here.
	life context.Context
	env  *component.Env

	route  *routebar.Model
	banner *banner.Model
	conv   *conversation.Model
	pipe   *pipeline.Model
	hb     *heartbeat.Model
	leases *leases.Model
	roles  *roles.Model
	events *events.Model
	input  *input.Model
	status *statusbar.Model
	// changes is the changes view, drawn over the panes while open.
	changes *changes.Model
	// tasks is the task list, drawn over the panes while open; steer is
	// the task the window steers (steer.go).
	tasks *tasks.Model
	steer tasks.Choice
	// others is what the banner's line about the other tasks that need
	// the person says (steer.go).
	others othersSaid
	// logs is the log view of a step (logs.go), drawn over the panes
	// while open.
	logs *logview.Model
	// issues is the issues view (F6), over the panes like the log view;
	// unlike it, letters stay with the message box (see issues.go).
	issues *issues.Model
	panes  []component.Component // every pane, for broadcasts

	link *link.Model
	rctx *relayctx.Model
	// missing is what the status bar was last told of the relay
	// context's self-check.
	missing []compact.Fact
	attn    *attention.Model
	// title is the terminal title last set, "" before the first.
	title string
	mem   memState

	// paste is the burst of typed text that may be a paste without
	// bracketed paste, and the keys it holds (pastekeys.go).
	paste burst

	focus focus
	// pointed says the focus came from the pointer (a click, the
	// wheel): typed text still goes to the message box.
	pointed bool
	// viewKeys says the open changes view has the keys, not the
	// message box (Tab moves them).
	viewKeys bool
	showHelp bool
	help     helpview.Full
	// helpFrom is the view the help was opened from: its keys come
	// first.
	helpFrom view
	w, h     int
	lay      layout
	seq      int // numbers forwarded messages
	ticks    int

	// helpLine is the short help View draws, and helpKey what it was
	// built for (settle rebuilds it when that changes).
	helpLine string
	helpKey  helpKey

	// arrived holds the events of the update being handled, until settle
	// tells Options.Probe.
	arrived []ledger.Event
	readAt  time.Time
}

// New builds a window. It does no IO: everything is read by the commands
// Init returns. ctx is the program's lifetime (see Run).
func New(ctx context.Context, opts Options) *Model {
	opts = opts.withDefaults()
	styles := opts.Styles
	if styles == nil {
		g := theme.UnicodeGlyphs()
		if opts.Wide {
			g = theme.ASCIIGlyphs()
		}
		styles = theme.NewStyles(lipgloss.DefaultRenderer(), theme.DefaultTheme(), g)
	}
	loc := i18n.MustNew(opts.Lang)
	env := component.NewEnv(loc, styles, component.Settings{Wide: opts.Wide, ReadOnly: opts.ReadOnly, Zone: opts.Zone, Now: opts.Now})
	now := opts.Now()
	policy := relayctx.DefaultPolicy()
	if opts.ContextPolicy != nil {
		policy = *opts.ContextPolicy
	}
	if policy.Now == nil {
		policy.Now = opts.Now
	}
	if policy.HandoffPath == "" && opts.Root != "" {
		policy.HandoffPath = ledger.Layout{Root: opts.Root}.Handoff()
	}
	// One reader of the team's outbox for the panes that show it: a
	// hub's connection is made once, not by every read.
	obs := outboxes.New(ctx, opts.OpenOutbox)
	m := &Model{
		opts:    opts,
		life:    ctx,
		env:     env,
		route:   routebar.New(env),
		banner:  banner.New(env),
		conv:    conversation.New(env),
		pipe:    pipeline.New(env),
		hb:      heartbeat.New(env),
		leases:  leases.New(env),
		roles:   roles.New(ctx, env, opts.Root, obs),
		events:  events.New(env, opts.EventCapacity),
		input:   input.New(env),
		status:  statusbar.New(env),
		changes: changes.New(env),
		tasks:   tasks.New(env),
		logs:    logview.New(env),
		issues:  issues.New(ctx, env, opts.Root, obs),
		link:    link.New(opts.Controllers, opts.ReadOnly, now),
		rctx:    relayctx.New(opts.Context, policy, opts.Logger),
		attn:    attention.New(*opts.Attention),
	}
	m.panes = []component.Component{m.route, m.banner, m.conv, m.pipe, m.hb, m.leases, m.roles, m.events, m.input, m.status, m.changes, m.tasks, m.logs, m.issues}
	if opts.ReadOnly {
		m.focus = focusEvents
	}
	m.applyFocus()
	m.broadcast(link.StateMsg{State: m.link.State()})
	m.settle()
	return m
}

// Init starts the feeds, the link and the clock.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.link.Init(m.life), m.rctx.Init(m.life)}
	if m.opts.Memory != nil {
		cmds = append(cmds, memory.Load(m.life, m.opts.Memory))
	}
	if m.opts.Feed != nil {
		cmds = append(cmds, live.WaitLedger(m.life, m.opts.Feed))
	}
	if r := m.opts.Relay; r != nil {
		cmds = append(cmds, live.WaitRelay(m.life, r), live.Observe(m.life, r))
	}
	if m.opts.Tick > 0 {
		cmds = append(cmds, live.Tick(m.opts.Tick))
	}
	return tea.Batch(cmds...)
}

// Focus returns the name of the focused pane.
func (m *Model) Focus() string { return m.focus.String() }

// Lang returns the language the window speaks.
func (m *Model) Lang() string { return m.env.Loc.Lang() }

// LinkState returns the state of the link to the controller.
func (m *Model) LinkState() link.State { return m.link.State() }

// Events returns the event pane, for tests and benchmarks.
func (m *Model) Events() *events.Model { return m.events }

// Conversation returns the conversation pane.
func (m *Model) Conversation() *conversation.Model { return m.conv }

// Banner returns the banner.
func (m *Model) Banner() *banner.Model { return m.banner }

// RelayContext returns the relay context.
func (m *Model) RelayContext() *relayctx.Model { return m.rctx }

// broadcast gives msg to every pane and batches what they return.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		if _, cmd := p.Update(msg); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(cmds...)
}

// focused returns the pane that has the keys.
func (m *Model) focused() component.Component { return m.paneFor(m.focus) }

// paneFor returns the pane of a focus.
func (m *Model) paneFor(f focus) component.Component {
	switch f {
	case focusConversation:
		return m.conv
	case focusEvents:
		return m.events
	case focusPipeline:
		return m.pipe
	case focusHeartbeat:
		return m.hb
	case focusLeases:
		return m.leases
	}
	return m.input
}

// applyFocus tells each focusable pane whether it has the keys: none
// while the changes view has them; the message box also while a pane
// has only the pointer's focus (typed text still goes there).
func (m *Model) applyFocus() {
	view := m.viewHasKeys()
	for f := focusInput; f < numFocus; f++ {
		if fp, ok := m.paneFor(f).(component.Focuser); ok {
			fp.SetFocused(!view && (f == m.focus || f == focusInput && m.pointed))
		}
	}
	if m.changes.Visible() {
		m.changes.SetFocused(view)
	}
	m.showKeysTo()
}

// showKeysTo has the message box's title say which view has the keys
// while one does, and how to get them back: the mode is on screen.
func (m *Model) showKeysTo() {
	k := m.env.Keys
	switch {
	case m.opts.ReadOnly:
		m.input.SetKeysTo("", "")
	case m.viewHasKeys():
		m.input.SetKeysTo(m.env.T("tui.pane.changes"), k.TypeTab.Help().Key)
	case m.focus != focusInput && !m.pointed:
		m.input.SetKeysTo(m.env.T(paneTitle(m.focus)), k.Type.Help().Key)
	default:
		m.input.SetKeysTo("", "")
	}
}
