package outbox

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// Forge is the outbox on an issue tracker's REST API: a GitHub
// repository's issues or a GitLab project's. Neither has transactions,
// cursors or unique keys, so the backend keeps a mirror: an outbox
// database of the same schema, per repository, that holds the issues as
// last read, the event log daokit derives from them, every reader's
// cursor and trigger, and the sync watermark with its ETags. Reads are
// the mirror's; Apply writes through to the service and then commits
// what it answered, the triggers and the cursor in one transaction of
// the mirror; Wait polls the service with conditional requests (a 304
// costs no rate limit) at a bounded interval shared by every process of
// the mirror.
//
// Every body daokit posts ends with a hidden marker naming the daokit
// actor and the trigger it answers: the mirror shows daokit's comments
// as the Lead's (all of daokit posts as the token's user), and a mirror
// rebuilt from the service gets its triggers back, so a trigger is
// answered once even when the local state is lost.
//
// What differs between GitHub and GitLab is the forge: the requests,
// the shapes of the answers, and how changes are listed.
type Forge struct {
	*SQLite
	api   forge
	c     *apiClient
	repo  string
	login string
	poll  time.Duration
	lock  *fileLock
	// mu serializes this process's users of the file lock (flock is
	// per open file, and every goroutine shares the one here).
	mu sync.Mutex
}

// ForgeConfig configures OpenGitHub and OpenGitLab.
type ForgeConfig struct {
	// Repo is "owner/name" on GitHub, the project's path
	// "group/sub/name" on GitLab.
	Repo string
	// APIURL is the REST root (DefaultGitHubAPI, DefaultGitLabAPI when
	// empty).
	APIURL string
	// Token authenticates every request; it is never written anywhere.
	Token string
	// Mirror is the local database of the repository (made when missing).
	Mirror string
	// Poll is the shortest time between two reads of the service by the
	// processes of the mirror (DefaultGitHubPoll when zero).
	Poll time.Duration
	// HTTP replaces the default client (tests, proxies).
	HTTP *http.Client
	// MaxBlock bounds how long one call waits out a rate limit before it
	// fails with ErrRateLimited (default: the mirror's wake interval, so
	// a Lead keeps beating); Wait never fails for it.
	MaxBlock time.Duration
	// Options tune the mirror (ReadOnly, WakeInterval).
	Options Options
}

// forge is what a service does its own way: every request the backend
// makes, and the decoding of the answers into remote issues and notes.
type forge interface {
	// who is the user of the token.
	who(ctx context.Context) (string, error)
	// changes reads the issues and comments changed since the
	// watermarks (kept in the mirror's state through g); save, run in
	// the transaction that commits them, moves the watermarks.
	changes(ctx context.Context, g *Forge) (issues []remote, notes []note, save func(*sql.Tx) error, err error)
	// issue is issue n (ok false: gone, or not an issue).
	issue(ctx context.Context, n int64) (r remote, ok bool, err error)
	// open opens an issue; assignees are the service's users.
	open(ctx context.Context, title, body string, labels, assignees []string) (remote, error)
	// setClosed closes or reopens issue n.
	setClosed(ctx context.Context, n int64, closed bool) (remote, error)
	// setAssignees makes logins the issue's assignees.
	setAssignees(ctx context.Context, n int64, logins []string) (remote, error)
	// addLabels and removeLabel answer the issue's labels after; a
	// label that is gone already is no error.
	addLabels(ctx context.Context, cur remote, add []string) ([]string, error)
	removeLabel(ctx context.Context, cur remote, l string) ([]string, error)
	// comment posts a comment on issue n.
	comment(ctx context.Context, n int64, body string) (note, error)
	// findIssue and findComment look for what login posted with
	// exactly this title and body (a crashed attempt's).
	findIssue(ctx context.Context, login, title, body string) (remote, bool, error)
	findComment(ctx context.Context, n int64, login, body string) (note, bool, error)
	// setText replaces issue n's title and body (Export, once the
	// numbers its references name are known).
	setText(ctx context.Context, n int64, title, body string) (remote, error)
	// username reports whether name can be one of the service's users
	// (its own rule); any other name is an assignee label.
	username(name string) bool
}

// note is one comment as the service has it.
type note struct {
	ID      int64
	Issue   int64
	User    string
	Body    string
	Created time.Time
	Updated time.Time
}

// DefaultGitHubPoll is how often an idle team asks the service for
// changes: conditional requests, free while nothing changed.
const DefaultGitHubPoll = 10 * time.Second

// GitHubActor is the actor of changes made on the service by people:
// issue listings say what changed, not who changed it.
const GitHubActor = "github"

// ErrOtherRepo: the mirror belongs to another repository.
var ErrOtherRepo = errors.New("outbox: the mirror is of another repository")

const ghSchema = `
CREATE TABLE IF NOT EXISTS gh_state(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gh_issues(number INTEGER PRIMARY KEY, labels TEXT NOT NULL, assignees TEXT NOT NULL, author TEXT NOT NULL, updated INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS gh_intents(reader TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY(reader, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gh_exported(origin TEXT PRIMARY KEY, issue INTEGER NOT NULL, comment INTEGER NOT NULL) WITHOUT ROWID;
`

// openForge opens the mirror of cfg.Repo for api, whose requests c
// sends, making the mirror when there is none (it is rebuilt from the
// service). A writer needs the token; it asks the service once who the
// token's user is.
func openForge(ctx context.Context, cfg ForgeConfig, c *apiClient, api forge) (*Forge, error) {
	ro := cfg.Options.ReadOnly || os.Getenv(WorkerEnv) != ""
	if !ro && cfg.Token == "" {
		return nil, ErrNoToken
	}
	if _, err := os.Stat(cfg.Mirror); errors.Is(err, os.ErrNotExist) && !ro {
		if _, err := Init(cfg.Mirror, false); err != nil {
			return nil, err
		}
	}
	s, err := OpenSQLite(cfg.Mirror, cfg.Options)
	if err != nil {
		return nil, err
	}
	g := &Forge{SQLite: s, repo: cfg.Repo, poll: cfg.Poll, c: c, api: api}
	if g.poll <= 0 {
		g.poll = DefaultGitHubPoll
	}
	g.c.maxBlock = cfg.MaxBlock
	if g.c.maxBlock <= 0 {
		g.c.maxBlock = max(s.wake, time.Second)
	}
	if s.readOnly {
		return g, nil
	}
	if err := g.init(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return g, nil
}

func (g *Forge) init(ctx context.Context) error {
	if _, err := g.db.ExecContext(ctx, ghSchema); err != nil {
		return err
	}
	have, err := g.state(ctx, "repo")
	if err != nil {
		return err
	}
	if have != "" && have != g.repo {
		return fmt.Errorf("%w: %s holds %s, not %s", ErrOtherRepo, g.path, have, g.repo)
	}
	if err := g.setState(ctx, g.db, "repo", g.repo); err != nil {
		return err
	}
	if g.lock, err = openFileLock(g.path + ".lock"); err != nil {
		return err
	}
	g.c.onWait = func(w RateWait) {
		b, _ := json.Marshal(w)
		_ = g.setState(context.Background(), g.db, "rate_wait", string(b))
	}
	// Who the token is was asked before, by this token (a fingerprint:
	// 8 bytes of its SHA-256, never the token): no request at each
	// start of a Lead or a command.
	sum := sha256.Sum256([]byte(g.c.token))
	fp := hex.EncodeToString(sum[:8])
	if have, _ := g.state(ctx, "login_fp"); have == fp {
		if g.login, _ = g.state(ctx, "login"); g.login != "" {
			return nil
		}
	}
	login, err := g.api.who(ctx)
	if errors.Is(err, ErrRateLimited) {
		// Restarted while the service makes us wait: the login read
		// before serves; the writes wait anyway.
		if login, _ = g.state(ctx, "login"); login != "" {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	g.login = login
	if err := g.setState(ctx, g.db, "login", login); err != nil {
		return err
	}
	return g.setState(ctx, g.db, "login_fp", fp)
}

// Service is the issue tracker: "github" or "gitlab".
func (g *Forge) Service() string { return g.c.service }

// Repo is the repository, "owner/name" (GitLab: the project's path).
func (g *Forge) Repo() string { return g.repo }

// Login is the service's user of the token ("" for a read-only open).
func (g *Forge) Login() string { return g.login }

// RateWait is the wait the service imposed on the processes of this
// mirror (zero when none, or when it is over).
func (g *Forge) RateWait() RateWait {
	if w := g.c.Wait(); time.Until(w.Until) > 0 {
		return w
	}
	var w RateWait
	if s, err := g.state(context.Background(), "rate_wait"); err == nil && s != "" {
		_ = json.Unmarshal([]byte(s), &w)
	}
	if time.Until(w.Until) <= 0 {
		return RateWait{}
	}
	return w
}

// Close releases the mirror and its lock.
func (g *Forge) Close() error {
	err := g.SQLite.Close()
	if g.lock != nil {
		g.lock.close()
	}
	return err
}

type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

func (g *Forge) state(ctx context.Context, key string) (string, error) {
	var v string
	err := g.db.QueryRowContext(ctx, `SELECT value FROM gh_state WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || (err != nil && !g.hasStateTable(ctx)) {
		return "", nil
	}
	return v, err
}

// hasStateTable: a read-only open of a mirror no writer has opened yet.
func (g *Forge) hasStateTable(ctx context.Context) bool {
	var n int
	_ = g.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name='gh_state'`).Scan(&n)
	return n > 0
}

func (g *Forge) setState(ctx context.Context, x execer, key, value string) error {
	_, err := x.ExecContext(ctx, `INSERT INTO gh_state(key, value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// locked runs f holding this process's mutex and the mirror's file lock.
func (g *Forge) locked(f func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.lock.lock(); err != nil {
		return err
	}
	defer g.lock.unlock()
	return f()
}

// Wait returns when the mirror has an event past after, ctx ends, or
// the mirror's wake interval passes; on the way it reads the service
// when no process of the mirror has for Poll.
func (g *Forge) Wait(ctx context.Context, after int64) error {
	if head, err := g.Head(ctx); err != nil || head > after {
		return err
	}
	if !g.readOnly {
		err := g.locked(func() error {
			if !g.syncDue(ctx) {
				return nil
			}
			return g.sync(ctx)
		})
		// Rate limited: the mirror is waited on as usual, and the
		// service is asked again once the wait is over (RateWait
		// shows it).
		if err != nil && !errors.Is(err, ErrRateLimited) {
			return err
		}
	}
	return g.SQLite.Wait(ctx, after)
}

// WaitRole is Wait: the mirror's wait is also when it reads the service,
// which a role's wake (SQLite.WaitRole) would skip.
func (g *Forge) WaitRole(ctx context.Context, after int64, _ string) error {
	return g.Wait(ctx, after)
}

// Sync reads the service's changes into the mirror now.
func (g *Forge) Sync(ctx context.Context) error {
	if g.readOnly {
		return ErrReadOnly
	}
	return g.locked(func() error { return g.sync(ctx) })
}

func (g *Forge) syncDue(ctx context.Context) bool {
	s, _ := g.state(ctx, "last_sync")
	n, err := strconv.ParseInt(s, 10, 64)
	return err != nil || time.Since(time.Unix(0, n)) >= g.poll
}
