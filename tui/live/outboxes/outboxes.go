// Package outboxes is how the window reads its team's outbox, whatever
// the backend: a file opened for each read, a hub's outbox opened once
// through the opener the command that starts the window hands it. It is
// a package of its own beside live so that what reaches live (the
// browser dashboard) does not reach the team's configuration.
package outboxes

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// Opener opens a team's outbox read-only, whatever its backend:
// the SQLite file, the mirror the Leads keep of a GitHub or GitLab
// outbox, or the outbox on a daokit hub (cmd/daokit gives the window
// outbox/pick's, which the window itself does not import: it never
// reaches the hub's client but through this).
type Opener func(ctx context.Context, wf *team.Workflow) (outbox.Backend, error)

// ErrNoTeam says the root has no team (no outbox folder, no hub root).
var ErrNoTeam = errors.New("no team")

// ErrHubUnreadable: the outbox is on a hub, and the window was given no
// opener that reaches hubs (Options.OpenOutbox).
var ErrHubUnreadable = errors.New("this window cannot read an outbox on a hub")

// hubRetry is how long a hub that could not be reached is not tried
// again: the roles pane reads every second, and a refused connection
// must not be paid for at that rate.
const hubRetry = 5 * time.Second

// Team is what the window reads of a root's team: its configuration
// and workflow.
type Team struct {
	Config   config.Config
	Workflow *team.Workflow
}

// Reader is how the window's panes read the team's outbox: never by
// opening a database themselves. A file (SQLite, a forge's mirror) is
// opened for each read, so that every read sees the current file; a
// hub's outbox is opened once and kept (it follows the hub's stream
// itself) until the window's life ends. Safe for concurrent use: the
// panes read inside their commands.
type Reader struct {
	open Opener
	now  func() time.Time

	mu     sync.Mutex
	closed bool
	hub    outbox.Backend // the open hub outbox, for hubKey
	hubKey string
	// failed is when opening hubKey last failed, and why.
	failed    time.Time
	failedKey string
	failedErr error
}

// New returns the outbox reader of a window whose life is ctx:
// the hub outbox it keeps is closed when ctx ends. open nil opens only
// SQLite files and mirrors.
func New(ctx context.Context, open Opener) *Reader {
	o := &Reader{open: open, now: time.Now}
	context.AfterFunc(ctx, o.close)
	return o
}

// Team reads root's daokit.toml and its team's workflow.toml; ErrNoTeam
// when it has none, team.Load's error when the workflow is broken.
func (o *Reader) Team(root string) (Team, error) {
	cfg, err := config.Load(root)
	if err != nil || (!team.Exists(cfg.Team.OutboxDir(root)) && cfg.Team.OutboxRoot == "") {
		return Team{}, ErrNoTeam
	}
	wf, err := team.Load(cfg.Team.OutboxDir(root))
	if err != nil {
		return Team{Config: cfg}, err
	}
	return Team{Config: cfg, Workflow: wf}, nil
}

// Open returns wf's outbox, read-only, and the function to call when
// the read is done.
func (o *Reader) Open(ctx context.Context, wf *team.Workflow) (outbox.Backend, func(), error) {
	if wf.Outbox.Backend != team.BackendNATS {
		ob, err := o.openFile(ctx, wf)
		if err != nil {
			return nil, nil, err
		}
		return ob, func() { _ = ob.Close() }, nil
	}
	ob, err := o.openHub(ctx, wf)
	if err != nil {
		return nil, nil, err
	}
	return ob, func() {}, nil
}

func (o *Reader) openFile(ctx context.Context, wf *team.Workflow) (outbox.Backend, error) {
	if o.open == nil {
		return outbox.OpenSQLite(wf.DBPath(), outbox.Options{ReadOnly: true})
	}
	return o.open(ctx, wf)
}

// openHub returns the kept hub outbox of wf, opening it when there is
// none (or wf names another hub, root or key than the kept one's).
func (o *Reader) openHub(ctx context.Context, wf *team.Workflow) (outbox.Backend, error) {
	if o.open == nil {
		return nil, ErrHubUnreadable
	}
	key := strings.Join([]string{wf.Outbox.URL, wf.Outbox.Root, wf.CredentialsPath()}, "\x00")
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return nil, context.Canceled
	case o.hub != nil && o.hubKey == key:
		return o.hub, nil
	case o.failedKey == key && o.now().Sub(o.failed) < hubRetry:
		return nil, o.failedErr
	}
	if o.hub != nil {
		_ = o.hub.Close()
		o.hub = nil
	}
	// Held while connecting: the reads queued behind it take the
	// outcome, and a second connection is never made.
	ob, err := o.open(ctx, wf)
	if err != nil {
		o.failed, o.failedKey, o.failedErr = o.now(), key, err
		return nil, err
	}
	o.hub, o.hubKey, o.failedKey = ob, key, ""
	return ob, nil
}

// close closes the kept hub outbox; nothing is opened afterwards.
func (o *Reader) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.hub != nil {
		_ = o.hub.Close()
		o.hub = nil
	}
}
