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
	"regexp"
	"strconv"
	"sync"
	"time"
)

// GitHub is the outbox on a GitHub repository's issues. GitHub has no
// transactions, cursors or unique keys, so the backend keeps a mirror:
// an outbox database of the same schema, per repository, that holds the
// issues as last read, the event log daokit derives from them, every
// reader's cursor and trigger, and the sync watermark with its ETags.
// Reads are the mirror's; Apply writes through to GitHub and then
// commits what GitHub answered, the triggers and the cursor in one
// transaction of the mirror; Wait polls GitHub with conditional
// requests (a 304 costs no rate limit) at a bounded interval shared by
// every process of the mirror.
//
// Every body daokit posts ends with a hidden marker naming the daokit
// actor and the trigger it answers: the mirror shows daokit's comments
// as the Lead's (all of daokit posts as the token's user), and a mirror
// rebuilt from GitHub gets its triggers back, so a trigger is answered
// once even when the local state is lost.
type GitHub struct {
	*SQLite
	c     *ghClient
	repo  string
	login string
	poll  time.Duration
	lock  *fileLock
	// mu serializes this process's users of the file lock (flock is
	// per open file, and every goroutine shares the one here).
	mu sync.Mutex
}

// GitHubConfig configures OpenGitHub.
type GitHubConfig struct {
	// Repo is "owner/name".
	Repo string
	// APIURL is the REST root (DefaultGitHubAPI when empty).
	APIURL string
	// Token authenticates every request; it is never written anywhere.
	Token string
	// Mirror is the local database of the repository (made when missing).
	Mirror string
	// Poll is the shortest time between two reads of GitHub by the
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

// DefaultGitHubPoll is how often an idle team asks GitHub for changes:
// two conditional requests, both free while nothing changed.
const DefaultGitHubPoll = 10 * time.Second

// GitHubActor is the actor of changes made on GitHub by people: issue
// listings say what changed, not who changed it.
const GitHubActor = "github"

// The errors of OpenGitHub and CheckGitHub that daokit words for people.
var (
	// ErrNoToken: neither GITHUB_TOKEN nor GH_TOKEN is set.
	ErrNoToken = errors.New("outbox: no GitHub token (GITHUB_TOKEN or GH_TOKEN)")
	// ErrBadRepo: repo is not "owner/name".
	ErrBadRepo = errors.New("outbox: repo must be owner/name")
	// ErrOtherRepo: the mirror belongs to another repository.
	ErrOtherRepo = errors.New("outbox: the mirror is of another repository")
)

var repoPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}$`)

// ValidRepo reports whether repo is "owner/name" as GitHub spells them.
func ValidRepo(repo string) bool { return repoPattern.MatchString(repo) }

// TokenFromEnv is the GitHub token of the environment: GITHUB_TOKEN,
// else GH_TOKEN (the gh CLI's).
func TokenFromEnv() string { return TokenFrom(os.Getenv) }

// TokenFrom is TokenFromEnv with getenv for the environment.
func TokenFrom(getenv func(string) string) string {
	if t := getenv("GITHUB_TOKEN"); t != "" {
		return t
	}
	return getenv("GH_TOKEN")
}

const ghSchema = `
CREATE TABLE IF NOT EXISTS gh_state(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gh_issues(number INTEGER PRIMARY KEY, labels TEXT NOT NULL, assignees TEXT NOT NULL, author TEXT NOT NULL, updated INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS gh_intents(reader TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY(reader, key)) WITHOUT ROWID;
`

// OpenGitHub opens the outbox of cfg.Repo through its mirror, making
// the mirror when there is none (it is rebuilt from GitHub). A writer
// needs the token; it asks GitHub once who the token's user is. A
// set-up problem is a *GitHubError.
func OpenGitHub(ctx context.Context, cfg GitHubConfig) (*GitHub, error) {
	g, err := openGitHub(ctx, cfg)
	if ge := AsGitHubError(err, cfg.Repo, cfg.APIURL); ge != nil {
		return nil, ge
	}
	return g, err
}

func openGitHub(ctx context.Context, cfg GitHubConfig) (*GitHub, error) {
	if !ValidRepo(cfg.Repo) {
		return nil, fmt.Errorf("%w: %q", ErrBadRepo, cfg.Repo)
	}
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
	g := &GitHub{SQLite: s, repo: cfg.Repo, poll: cfg.Poll, c: newGHClient(cfg.APIURL, cfg.Repo, cfg.Token, cfg.HTTP)}
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

func (g *GitHub) init(ctx context.Context) error {
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
	var u ghUser
	err = g.c.getJSON(ctx, "/user", &u)
	if errors.Is(err, ErrRateLimited) {
		// Restarted while GitHub makes us wait: the login read before
		// serves; the writes wait anyway.
		if u.Login, _ = g.state(ctx, "login"); u.Login != "" {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	g.login = u.Login
	if err := g.setState(ctx, g.db, "login", u.Login); err != nil {
		return err
	}
	return g.setState(ctx, g.db, "login_fp", fp)
}

// Repo is the repository, "owner/name".
func (g *GitHub) Repo() string { return g.repo }

// Login is the GitHub user of the token ("" for a read-only open).
func (g *GitHub) Login() string { return g.login }

// RateWait is the wait GitHub imposed on the processes of this mirror
// (zero when none, or when it is over).
func (g *GitHub) RateWait() RateWait {
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
func (g *GitHub) Close() error {
	err := g.SQLite.Close()
	if g.lock != nil {
		g.lock.close()
	}
	return err
}

type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

func (g *GitHub) state(ctx context.Context, key string) (string, error) {
	var v string
	err := g.db.QueryRowContext(ctx, `SELECT value FROM gh_state WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || (err != nil && !g.hasStateTable(ctx)) {
		return "", nil
	}
	return v, err
}

// hasStateTable: a read-only open of a mirror no writer has opened yet.
func (g *GitHub) hasStateTable(ctx context.Context) bool {
	var n int
	_ = g.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name='gh_state'`).Scan(&n)
	return n > 0
}

func (g *GitHub) setState(ctx context.Context, x execer, key, value string) error {
	_, err := x.ExecContext(ctx, `INSERT INTO gh_state(key, value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// locked runs f holding this process's mutex and the mirror's file lock.
func (g *GitHub) locked(f func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.lock.lock(); err != nil {
		return err
	}
	defer g.lock.unlock()
	return f()
}

// Wait returns when the mirror has an event past after, ctx ends, or
// the mirror's wake interval passes; on the way it reads GitHub when no
// process of the mirror has for Poll.
func (g *GitHub) Wait(ctx context.Context, after int64) error {
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
		// Rate limited: the mirror is waited on as usual, and GitHub is
		// asked again once the wait is over (RateWait shows it).
		if err != nil && !errors.Is(err, ErrRateLimited) {
			return err
		}
	}
	return g.SQLite.Wait(ctx, after)
}

// Sync reads GitHub's changes into the mirror now.
func (g *GitHub) Sync(ctx context.Context) error {
	if g.readOnly {
		return ErrReadOnly
	}
	return g.locked(func() error { return g.sync(ctx) })
}

func (g *GitHub) syncDue(ctx context.Context) bool {
	s, _ := g.state(ctx, "last_sync")
	n, err := strconv.ParseInt(s, 10, 64)
	return err != nil || time.Since(time.Unix(0, n)) >= g.poll
}
