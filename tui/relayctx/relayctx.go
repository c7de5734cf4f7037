package relayctx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/hooks"
	"github.com/daokit/daokit/ledger"
)

// Figures are what the status bar shows of the context.
type Figures struct {
	Bytes   int // size of the context's JSON now
	Before  int // size before the last compaction, 0 before the first
	After   int // size right after the last compaction
	Runs    int // compactions since the window opened
	Entries int // entries in the lists
}

// LoadedMsg carries the saved context read at start.
type LoadedMsg struct {
	Data []byte
	Err  error
}

// CompactedMsg carries the result of one compaction: the context after
// the pre-compact hooks, the built-in compaction's report, and how each
// hook ended.
type CompactedMsg struct {
	Context  *compact.Context
	Report   compact.Report
	Results  []hooks.Result
	Triggers []compact.Trigger
}

// SavedMsg says whether the context reached its file. Data is what the
// file holds now (nil after a failure); Wrote is false when the file held
// those bytes already and was left alone.
type SavedMsg struct {
	Err   error
	Data  []byte
	Wrote bool
}

// Model is the relay context. It is not a pane: the root records what
// happens into it and shows its Figures.
type Model struct {
	cur    *compact.Context
	store  Store
	policy Policy
	hooks  *compact.Hooks
	log    *slog.Logger

	loaded   bool // the saved context was read (or there was none)
	inFlight bool // a compaction runs on a copy
	since    []op // changes made after that copy was taken
	pending  change
	health   string // the latest health state (heartbeat status, LEASE_TAKEOVER)
	hookErr  error  // the last failed pre-compact hook
	runs     int
	before   int
	after    int

	dirty, saving bool
	err           error // the last load or save failure, for the banner

	known    compact.Facts   // what the ledger knows of the keep set
	perStep  map[string]int  // worker lines recorded per task/run/step
	evidence map[string]bool // evidence paths recorded
	lastHB   string

	discard  bool // drop the running compaction's result (context restored)
	restores int

	// constraints are the person's constraints, oldest first: the window
	// owns them and writes them with every change of the keep set.
	constraints []string
	synced      compact.Facts  // the ledger's facts last written into the keep set
	missing     []compact.Fact // the latest self-check's answer
	saved       []byte         // what the file holds, as last read or written
	writes      int            // times the file was written
	early       []ledger.Event // instruction events that arrived before the file was read
	// cut is when the constraints were last set whole (the saved file
	// read, a hand edit, a removal): an instruction recorded before it
	// is in them already or was taken out, and must not add again. Not
	// the keep set's stamp, which moves with every route and blocker: a
	// run's pipeline can be seen before its instruction's event.
	cut time.Time
}

// New returns an empty context kept in store (nil: memory only).
func New(store Store, policy Policy, log *slog.Logger) *Model {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hs := policy.Hooks
	if hs == nil {
		hs = compact.NewHooks()
	}
	return &Model{cur: &compact.Context{}, store: store, policy: policy, hooks: hs, log: log,
		perStep: map[string]int{}, evidence: map[string]bool{}, constraints: []string{}}
}

// Writes counts the times the context's file was written (not the saves
// that found it unchanged).
func (m *Model) Writes() int { return m.writes }

// Figures returns the status-bar figures.
func (m *Model) Figures() Figures {
	return Figures{Bytes: m.cur.Size(), Before: m.before, After: m.after, Runs: m.runs, Entries: m.cur.Len()}
}

// Err returns the last failure to read or write the context file, nil
// when the file is fine.
func (m *Model) Err() error { return m.err }

// HookErr returns the last pre-compact hook that failed or timed out in
// the latest compaction (a *HookError), nil when all ran.
func (m *Model) HookErr() error { return m.hookErr }

// HookError is a pre-compact hook that did not finish well; the context
// went on without its changes.
type HookError struct {
	Result hooks.Result
}

// Error implements error.
func (e *HookError) Error() string {
	return fmt.Sprintf("pre-compact hook %s: %s %s", e.Result.Name, e.Result.Code, e.Result.Reason)
}

// Context returns a copy of the current context.
func (m *Model) Context() *compact.Context { return m.cur.Clone() }

// Init reads the saved context.
func (m *Model) Init(ctx context.Context) tea.Cmd {
	if m.store == nil {
		m.loaded = true
		return nil
	}
	store := m.store
	return func() tea.Msg {
		data, err := store.Load(ctx)
		return LoadedMsg{Data: data, Err: err}
	}
}

// apply makes one change now and remembers it if a compaction is running.
func (m *Model) apply(o op) {
	if o == nil {
		return
	}
	o(m.cur)
	if m.inFlight {
		m.since = append(m.since, o)
	}
	m.dirty = true
}

// Update handles the context's own messages and returns follow-up
// commands. ctx bounds them.
func (m *Model) Update(ctx context.Context, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		return m.loadedMsg(ctx, msg)
	case HandoffMsg:
		if msg.Err != nil {
			m.err = msg.Err
			return nil
		}
		return m.restore(ctx, msg.Package)
	case CompactedMsg:
		m.inFlight = false
		if m.discard {
			m.discard = false
			return m.maybeCompact(ctx)
		}
		m.cur = msg.Context
		for _, o := range m.since {
			o(m.cur)
		}
		m.since = nil
		m.missing = m.cur.Facts().Missing()
		m.log.Debug("relay context self-check", "missing", fmt.Sprint(m.missing))
		m.runs++
		m.before, m.after = msg.Report.BytesBefore, msg.Report.BytesAfter
		m.dirty = true
		m.hookErr = nil
		for _, r := range msg.Results {
			if r.Status == hooks.StatusFailed || r.Status == hooks.StatusTimeout {
				m.hookErr = &HookError{Result: r}
			}
		}
		m.log.Debug("relay context compacted", "triggers", fmt.Sprint(msg.Triggers),
			"bytes_before", msg.Report.BytesBefore, "bytes_after", msg.Report.BytesAfter)
		return tea.Batch(m.save(ctx), m.maybeCompact(ctx))
	case EditedMsg:
		m.saving = false
		m.edited(msg.Data)
		return nil
	case SavedMsg:
		m.saving = false
		m.err = msg.Err
		if msg.Err != nil {
			m.log.Debug("relay context not saved", "err", msg.Err)
			m.saved = nil
			return nil
		}
		m.saved = msg.Data
		if msg.Wrote {
			m.writes++
		}
		return nil
	}
	return nil
}

func (m *Model) loadedMsg(ctx context.Context, msg LoadedMsg) tea.Cmd {
	m.loaded = true
	defer m.takeEarly()
	if msg.Err != nil {
		m.err = msg.Err
		return nil
	}
	if len(msg.Data) == 0 {
		return nil
	}
	saved, err := compact.Parse(msg.Data)
	if err != nil {
		m.err = fmt.Errorf("relay context: %w", err)
		return nil
	}
	m.saved = msg.Data
	// The self-check of the context as a successor would read it.
	sf := saved.Facts()
	m.missing = sf.Missing()
	// What was recorded before the file was read goes after it; the
	// saved constraints come first.
	pending := m.cur
	m.cur = saved
	m.cut, _ = ledger.ParseTime(saved.UpdatedAt())
	for _, l := range compact.Lists() {
		for _, e := range pending.Entries(l) {
			_ = m.cur.Append(l, e)
		}
	}
	early := m.constraints
	m.constraints = []string{}
	m.addConstraints(sf.Constraints)
	m.addConstraints(early)
	m.setFacts(pending.Facts())
	if capLists(m.cur) {
		m.dirty = true
	}
	return m.maybeCompact(ctx)
}

// takeEarly reads the instruction events that arrived before the saved
// context, now that its stamp is known.
func (m *Model) takeEarly() {
	early := m.early
	m.early = nil
	for i := range early {
		m.instructionEvent(&early[i])
	}
}

// maybeCompact asks compact's triggers whether to compact now, and if so
// runs the pre-compact hooks (the built-in compaction first) on a copy in
// a command.
func (m *Model) maybeCompact(ctx context.Context) tea.Cmd {
	if m.inFlight || !m.loaded || m.policy.Manual {
		return nil
	}
	d := m.policy.Triggers.Decide(m.cur, m.pending.compactChange())
	if !d.Compact() {
		return nil
	}
	m.inFlight, m.pending = true, change{}
	snapshot, known, hs := m.cur.Clone(), m.known, m.hooks
	before := snapshot.Size()
	return func() tea.Msg {
		out := hs.Run(ctx, hooks.PreCompact, snapshot, known)
		msg := CompactedMsg{Context: out.Context, Results: out.Results, Triggers: d.Reasons}
		if out.Report != nil {
			msg.Report = *out.Report
		}
		msg.Report.BytesBefore, msg.Report.BytesAfter = before, out.Context.Size()
		return msg
	}
}

// Flush saves the context if it changed since the last save, else looks
// whether someone edited the file by hand. The root calls it on the clock
// tick, so that a busy window writes at most once a second.
func (m *Model) Flush(ctx context.Context) tea.Cmd {
	if m.dirty {
		return m.save(ctx)
	}
	if m.store == nil || m.saving || !m.loaded || m.saved == nil {
		return nil
	}
	m.saving = true
	prev, store := m.saved, m.store
	return func() tea.Msg {
		if edit := editOf(ctx, store, prev); edit != nil {
			return EditedMsg{Data: edit}
		}
		return SavedMsg{Data: prev}
	}
}

// editOf returns what the file holds when that is not prev, the bytes
// the window last read or wrote: someone edited it by hand. A file that
// is gone or unreadable is no edit (the next save writes it again).
func editOf(ctx context.Context, store Store, prev []byte) []byte {
	cur, err := store.Load(ctx)
	if err != nil || cur == nil || bytes.Equal(cur, prev) {
		return nil
	}
	return cur
}

// save writes the context in a command: the copy is taken here, the
// encoding, the comparison with what the file holds and the write happen
// off the window's loop. Bytes equal to the file's are not written again.
func (m *Model) save(ctx context.Context) tea.Cmd {
	if m.store == nil || !m.dirty || m.saving || !m.loaded {
		return nil
	}
	m.dirty, m.saving = false, true
	snapshot, prev, store := m.cur.Clone(), m.saved, m.store
	return func() tea.Msg {
		data := snapshot.Encode()
		if bytes.Equal(data, prev) {
			return SavedMsg{Data: prev}
		}
		// A hand edit since the last save wins over what the window
		// recorded meanwhile; it is read, not overwritten.
		if prev != nil {
			if edit := editOf(ctx, store, prev); edit != nil {
				return EditedMsg{Data: edit}
			}
		}
		if err := store.Save(ctx, data); err != nil {
			return SavedMsg{Err: err}
		}
		return SavedMsg{Data: data, Wrote: true}
	}
}
