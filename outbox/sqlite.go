package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver
)

// WorkerEnv is the environment variable a Lead sets for its Workers. A
// process that has it opens the outbox read-only: Apply returns
// ErrReadOnly (seed 003: only Leads hold the outbox write right).
const WorkerEnv = "DAOKIT_WORKER_OF"

// DefaultWakeInterval bounds how long Wait sleeps without a file
// notification before the caller re-checks the head: the SQLite backend's
// "poll new event ids at a bounded interval", as a safety net under the
// file watch, never a busy loop.
const DefaultWakeInterval = time.Second

// SQLite is the local outbox: one database file in WAL mode, shared by
// every Lead process and the CLI of one project.
type SQLite struct {
	db       *sql.DB
	path     string
	readOnly bool
	wake     time.Duration
	notify   *notifier
	once     sync.Once
	// reads are the statements every Lead runs on every wake (Head,
	// Events), prepared once: parsing the SQL again each time was a
	// sixth of an idle Lead's CPU per event.
	reads     sync.Once
	headStmt  *sql.Stmt
	eventStmt *sql.Stmt
	readsErr  error
	// waiters are the role wake watches of WaitRole (rolewake.go).
	wakeMu  sync.Mutex
	waiters map[string]*roleWaiter
	closed  bool
}

const (
	headSQL   = `SELECT COALESCE(MAX(id), 0) FROM events`
	eventsSQL = `SELECT e.id, e.kind, e.issue, e.comment, e.actor, e.value, e.time, COALESCE(c.body, '')
		FROM events e LEFT JOIN comments c ON e.comment > 0 AND c.id = e.comment WHERE e.id>? ORDER BY e.id LIMIT ?`
)

// prepared returns the prepared Head and Events statements.
// (Prepared without the caller's context, whose end must not stay with
// them for good.)
func (s *SQLite) prepared() (head, events *sql.Stmt, err error) {
	s.reads.Do(func() {
		if s.headStmt, s.readsErr = s.db.Prepare(headSQL); s.readsErr != nil {
			return
		}
		s.eventStmt, s.readsErr = s.db.Prepare(eventsSQL)
	})
	return s.headStmt, s.eventStmt, s.readsErr
}

// Options tune OpenSQLite.
type Options struct {
	// ReadOnly refuses every Apply with ErrReadOnly.
	ReadOnly bool
	// WakeInterval replaces DefaultWakeInterval (tests shorten it).
	WakeInterval time.Duration
}

// OpenSQLite opens the outbox database at path. It never creates one: a
// missing, empty or corrupt database is an *OpenError (see Init). A
// process whose environment has WorkerEnv set is always read-only.
func OpenSQLite(path string, o Options) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkFile(abs); err != nil {
		return nil, err
	}
	// Checked before the pragmas and migrate, which would otherwise
	// write into any SQLite database the path named.
	if err := checkSchema(abs); err != nil {
		return nil, err
	}
	return openSQLite(abs, o)
}

// openSQLite opens abs, a database checked by OpenSQLite or new (Init).
func openSQLite(abs string, o Options) (*SQLite, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	// NORMAL is durable across process crashes (the WAL survives a
	// SIGKILL); only an OS crash may lose the newest commits.
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(0)
	s := &SQLite{db: db, path: abs, wake: o.WakeInterval}
	s.readOnly = o.ReadOnly || os.Getenv(WorkerEnv) != ""
	if s.wake <= 0 {
		s.wake = DefaultWakeInterval
	}
	if !s.readOnly {
		if err := s.migrate(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *SQLite) migrate() error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("outbox: open %s: %w", s.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return fmt.Errorf("outbox: schema: %w", err)
	}
	return tx.Commit()
}

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

// Close closes the database and the file watch.
func (s *SQLite) Close() error {
	s.closeWaiters()
	if s.notify != nil {
		s.notify.close()
	}
	for _, st := range []*sql.Stmt{s.headStmt, s.eventStmt} {
		if st != nil {
			st.Close()
		}
	}
	return s.db.Close()
}

func nowNanos() int64 { return time.Now().UTC().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// Apply commits c in one IMMEDIATE transaction (see Change).
func (s *SQLite) Apply(ctx context.Context, c Change) (Result, error) {
	if s.readOnly {
		return Result{}, ErrReadOnly
	}
	if err := validateChange(c); err != nil {
		return Result{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Result{}, err
	}
	a := &applier{tx: tx, ctx: ctx, actor: c.Actor, now: nowNanos(), prepare: len(c.Parts) > 0}
	defer a.close()
	defer tx.Rollback()
	if c.Reader != "" && c.UpTo > 0 {
		var cur int64
		err := tx.QueryRowContext(ctx, `SELECT event FROM cursors WHERE reader=?`, c.Reader).Scan(&cur)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Result{}, err
		}
		if cur >= c.UpTo {
			return Result{Stale: true}, nil
		}
	}
	for _, lim := range c.Limits {
		n, err := a.countLimit(lim)
		if err != nil {
			return Result{}, err
		}
		if n >= lim.Max {
			return Result{OverLimit: true}, nil
		}
	}
	dups := make([]bool, 0, 1+len(c.Parts))
	losts := make([]bool, 0, 1+len(c.Parts))
	for _, part := range append([]Part{{Trigger: c.Trigger, Ops: c.Ops}}, c.Parts...) {
		dup := false
		if part.Trigger != "" {
			res, err := a.exec(`INSERT INTO triggers(reader, key, event) VALUES(?,?,?) ON CONFLICT DO NOTHING`,
				c.Reader, part.Trigger, c.UpTo)
			if err != nil {
				return Result{}, err
			}
			n, _ := res.RowsAffected()
			dup = n == 0
		}
		dups = append(dups, dup)
		lost := false
		for _, op := range part.Ops {
			if dup {
				break
			}
			if err := a.apply(op); errors.Is(err, errLost) {
				lost = true
				break
			} else if err != nil {
				return Result{}, err
			}
		}
		losts = append(losts, lost)
	}
	if c.Reader != "" && c.UpTo > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO cursors(reader, event) VALUES(?,?)
			ON CONFLICT(reader) DO UPDATE SET event=excluded.event WHERE excluded.event > cursors.event`, c.Reader, c.UpTo); err != nil {
			return Result{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return Result{}, err
	}
	if len(a.res.Events) > 0 {
		s.poke(a.wake)
	}
	a.res.Duplicate, a.res.PartDuplicate = dups[0], dups[1:]
	a.res.Lost, a.res.PartLost = losts[0], losts[1:]
	return a.res, nil
}

func validateChange(c Change) error {
	for _, lim := range c.Limits {
		if lim.Max < 1 || strings.TrimSpace(lim.Label) == "" || len(lim.Assignees) == 0 {
			return fmt.Errorf("%w: limit %+v", ErrInvalid, lim)
		}
	}
	for _, part := range append([]Part{{Trigger: c.Trigger, Ops: c.Ops}}, c.Parts...) {
		if err := validatePart(c, part); err != nil {
			return err
		}
	}
	return nil
}

func validatePart(c Change, part Part) error {
	if part.Trigger != "" && c.Reader == "" {
		return fmt.Errorf("%w: a trigger needs a reader", ErrInvalid)
	}
	if len(part.Ops) > 0 && strings.TrimSpace(c.Actor) == "" {
		return fmt.Errorf("%w: no actor", ErrInvalid)
	}
	for _, op := range part.Ops {
		switch op.Kind {
		case OpOpen:
			if strings.TrimSpace(op.Title) == "" {
				return fmt.Errorf("%w: an issue needs a title", ErrInvalid)
			}
		case OpComment:
			if strings.TrimSpace(op.Body) == "" {
				return fmt.Errorf("%w: an empty comment", ErrInvalid)
			}
		case OpLabel, OpUnlabel:
			for _, l := range op.Labels {
				if strings.TrimSpace(l) == "" || strings.ContainsAny(l, " \t\n,") {
					return fmt.Errorf("%w: label %q", ErrInvalid, l)
				}
			}
		case OpAssign, OpClose, OpReopen:
		default:
			return fmt.Errorf("%w: operation %q", ErrInvalid, op.Kind)
		}
	}
	return nil
}

// countLimit counts the open issues assigned to one of lim's assignees
// that carry its label (through the label index).
func (a *applier) countLimit(lim Limit) (int, error) {
	args := []any{lim.Label}
	for _, as := range lim.Assignees {
		args = append(args, as)
	}
	q := `SELECT count(*) FROM labels l JOIN issues i ON i.id = l.issue
		WHERE l.label = ? AND i.closed = 0 AND i.assignee IN (?` + strings.Repeat(",?", len(lim.Assignees)-1) + `)`
	var n int
	err := a.tx.QueryRowContext(a.ctx, q, args...).Scan(&n)
	return n, err
}

// applier runs the operations of one Change inside its transaction.
type applier struct {
	tx    *sql.Tx
	ctx   context.Context
	actor string
	now   int64
	res   Result
	stmts map[string]*sql.Stmt
	// prepare: the change is a batch, whose statements repeat; a single
	// change runs each once, where preparing first only costs.
	prepare bool
	// wake are the roles the change may concern (rolewake.go).
	wake wakeKeys
}

// stmt prepares a statement once per transaction: a batched Change runs
// the same few statements many times.
func (a *applier) stmt(q string) (*sql.Stmt, error) {
	if st, ok := a.stmts[q]; ok {
		return st, nil
	}
	st, err := a.tx.PrepareContext(a.ctx, q)
	if err != nil {
		return nil, err
	}
	if a.stmts == nil {
		a.stmts = map[string]*sql.Stmt{}
	}
	a.stmts[q] = st
	return st, nil
}

func (a *applier) exec(q string, args ...any) (sql.Result, error) {
	if !a.prepare {
		return a.tx.ExecContext(a.ctx, q, args...)
	}
	st, err := a.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(a.ctx, args...)
}

func (a *applier) queryRow(q string, args ...any) *sql.Row {
	if !a.prepare {
		return a.tx.QueryRowContext(a.ctx, q, args...)
	}
	st, err := a.stmt(q)
	if err != nil {
		return a.queryRow(q, args...)
	}
	return st.QueryRowContext(a.ctx, args...)
}

func (a *applier) close() {
	for _, st := range a.stmts {
		st.Close()
	}
}

func (a *applier) event(kind EventKind, issue, comment int64, value string) error {
	r, err := a.exec(`INSERT INTO events(kind, issue, comment, actor, value, time) VALUES(?,?,?,?,?,?)`,
		string(kind), issue, comment, a.actor, value, a.now)
	if err != nil {
		return err
	}
	id, err := r.LastInsertId()
	a.res.Events = append(a.res.Events, id)
	return err
}

// target resolves an op's issue: -k is the k-th issue opened in this Change.
func (a *applier) target(op Op) (int64, error) {
	id := op.Issue
	if id < 0 {
		k := int(-id)
		if k > len(a.res.Issues) {
			return 0, fmt.Errorf("%w: issue %d of this change not opened yet", ErrInvalid, -k)
		}
		return a.res.Issues[k-1], nil
	}
	var one int
	if err := a.queryRow(`SELECT 1 FROM issues WHERE id=?`, id).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("%w: issue #%d", ErrNotFound, id)
		}
		return 0, err
	}
	return id, nil
}

// errLost is an OpAssign whose IfAssignee did not hold: its part is
// lost, not the change failed.
var errLost = errors.New("outbox: assignee changed")

func (a *applier) touch(id int64) error {
	_, err := a.exec(`UPDATE issues SET updated=? WHERE id=?`, a.now, id)
	return err
}

func (a *applier) apply(op Op) error {
	a.wakeOp(op)
	if op.Kind == OpOpen {
		return a.open(op)
	}
	id, err := a.target(op)
	if err != nil {
		return err
	}
	if err := a.wakeIssue(id); err != nil {
		return err
	}
	switch op.Kind {
	case OpComment:
		r, err := a.exec(`INSERT INTO comments(issue, author, body, created) VALUES(?,?,?,?)`, id, a.actor, op.Body, a.now)
		if err != nil {
			return err
		}
		cid, _ := r.LastInsertId()
		a.res.Comments = append(a.res.Comments, cid)
		if err := a.event(EventCommented, id, cid, ""); err != nil {
			return err
		}
	case OpLabel, OpUnlabel:
		for _, l := range op.Labels {
			q, kind := `INSERT INTO labels(issue, label) VALUES(?,?) ON CONFLICT DO NOTHING`, EventLabeled
			if op.Kind == OpUnlabel {
				q, kind = `DELETE FROM labels WHERE issue=? AND label=?`, EventUnlabeled
			}
			r, err := a.exec(q, id, l)
			if err != nil {
				return err
			}
			if n, _ := r.RowsAffected(); n > 0 {
				if err := a.event(kind, id, 0, l); err != nil {
					return err
				}
			}
		}
	case OpAssign:
		if op.IfAssignee != nil {
			var cur string
			if err := a.queryRow(`SELECT assignee FROM issues WHERE id=?`, id).Scan(&cur); err != nil {
				return err
			}
			if !slices.Contains(op.IfAssignee, cur) {
				return errLost
			}
		}
		r, err := a.exec(`UPDATE issues SET assignee=? WHERE id=? AND assignee<>?`, op.Assignee, id, op.Assignee)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n > 0 {
			if err := a.event(EventAssigned, id, 0, op.Assignee); err != nil {
				return err
			}
		}
	case OpClose, OpReopen:
		want, kind := 1, EventClosed
		if op.Kind == OpReopen {
			want, kind = 0, EventReopened
		}
		r, err := a.exec(`UPDATE issues SET closed=? WHERE id=? AND closed<>?`, want, id, want)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n > 0 {
			if err := a.event(kind, id, 0, ""); err != nil {
				return err
			}
		}
	}
	return a.touch(id)
}

func (a *applier) open(op Op) error {
	r, err := a.exec(`INSERT INTO issues(title, body, author, assignee, created, updated) VALUES(?,?,?,?,?,?)`,
		op.Title, op.Body, a.actor, op.Assignee, a.now, a.now)
	if err != nil {
		return err
	}
	id, _ := r.LastInsertId()
	a.res.Issues = append(a.res.Issues, id)
	for _, l := range op.Labels {
		if _, err := a.exec(`INSERT INTO labels(issue, label) VALUES(?,?) ON CONFLICT DO NOTHING`, id, l); err != nil {
			return err
		}
	}
	return a.event(EventOpened, id, 0, "")
}

// Events returns up to limit events after the given id.
func (s *SQLite) Events(ctx context.Context, after int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	_, st, err := s.prepared()
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]Event, 0, 64)
	for rows.Next() {
		var e Event
		var kind string
		var t int64
		if err := rows.Scan(&e.ID, &kind, &e.Issue, &e.Comment, &e.Actor, &e.Value, &t, &e.Body); err != nil {
			return nil, err
		}
		e.Kind, e.Time = EventKind(kind), fromNanos(t)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Head returns the newest event id.
func (s *SQLite) Head(ctx context.Context) (int64, error) {
	st, _, err := s.prepared()
	if err != nil {
		return 0, err
	}
	var n int64
	err = st.QueryRowContext(ctx).Scan(&n)
	return n, err
}

// Cursor returns reader's cursor.
func (s *SQLite) Cursor(ctx context.Context, reader string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT event FROM cursors WHERE reader=?`, reader).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// Cursors returns every cursor.
func (s *SQLite) Cursors(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT reader, event FROM cursors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var r string
		var n int64
		if err := rows.Scan(&r, &n); err != nil {
			return nil, err
		}
		out[r] = n
	}
	return out, rows.Err()
}

// Triggers counts reader's recorded triggers.
func (s *SQLite) Triggers(ctx context.Context, reader string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM triggers WHERE reader=?`, reader).Scan(&n)
	return n, err
}

const issueColumns = `id, title, body, author, assignee, closed, created, updated`

func scanIssue(sc interface{ Scan(...any) error }) (Issue, error) {
	var i Issue
	var closed int
	var c, u int64
	if err := sc.Scan(&i.ID, &i.Title, &i.Body, &i.Author, &i.Assignee, &closed, &c, &u); err != nil {
		return Issue{}, err
	}
	i.Closed, i.Created, i.Updated = closed != 0, fromNanos(c), fromNanos(u)
	return i, nil
}

// Issue returns one issue.
func (s *SQLite) Issue(ctx context.Context, id int64) (Issue, error) {
	i, err := scanIssue(s.db.QueryRowContext(ctx, `SELECT `+issueColumns+` FROM issues WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Issue{}, fmt.Errorf("%w: issue #%d", ErrNotFound, id)
	}
	if err != nil {
		return Issue{}, err
	}
	labels, err := s.labels(ctx, []int64{id})
	i.Labels = labels[id]
	return i, err
}

func (s *SQLite) labels(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var q string
	args := make([]any, len(ids))
	for k, id := range ids {
		args[k] = id
	}
	q = `SELECT issue, label FROM labels WHERE issue IN (?` + strings.Repeat(",?", len(ids)-1) + `) ORDER BY issue, label`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l string
		if err := rows.Scan(&id, &l); err != nil {
			return nil, err
		}
		out[id] = append(out[id], l)
	}
	return out, rows.Err()
}

// List returns issues matching q, oldest first.
func (s *SQLite) List(ctx context.Context, q Query) ([]Issue, error) {
	var where []string
	var args []any
	if q.Label != "" {
		where = append(where, `id IN (SELECT issue FROM labels WHERE label=?)`)
		args = append(args, q.Label)
	}
	if q.Assignee != "" {
		where = append(where, `assignee=?`)
		args = append(args, q.Assignee)
	}
	switch q.State {
	case "open":
		where = append(where, `closed=0`)
	case "closed":
		where = append(where, `closed=1`)
	}
	query := `SELECT ` + issueColumns + ` FROM issues`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY id`
	if q.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, q.Limit)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var out []Issue
	var ids []int64
	for rows.Next() {
		i, err := scanIssue(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, i)
		ids = append(ids, i.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		labels, err := s.labels(ctx, ids[start:end])
		if err != nil {
			return nil, err
		}
		for k := start; k < end; k++ {
			out[k].Labels = labels[out[k].ID]
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, nil
}

// Comments returns an issue's comments.
func (s *SQLite) Comments(ctx context.Context, issue int64) ([]Comment, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, issue, author, body, created FROM comments WHERE issue=? ORDER BY id`, issue)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Comment
	for rows.Next() {
		var c Comment
		var t int64
		if err := rows.Scan(&c.ID, &c.Issue, &c.Author, &c.Body, &t); err != nil {
			return nil, err
		}
		c.Created = fromNanos(t)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Comment returns one comment.
func (s *SQLite) Comment(ctx context.Context, id int64) (Comment, error) {
	var c Comment
	var t int64
	err := s.db.QueryRowContext(ctx, `SELECT id, issue, author, body, created FROM comments WHERE id=?`, id).
		Scan(&c.ID, &c.Issue, &c.Author, &c.Body, &t)
	if errors.Is(err, sql.ErrNoRows) {
		return Comment{}, fmt.Errorf("%w: comment %d", ErrNotFound, id)
	}
	c.Created = fromNanos(t)
	return c, err
}

// Wait returns once the head is past after, ctx ends, or the wake
// interval passes, whichever is first.
//
// The file watch sees the WAL grow, but a commit becomes visible a moment
// later, when the wal-index in shared memory is updated, which no watch
// sees. So a notification is followed by a few quick looks (1, 4, 16 and
// 64 ms) before waiting again; the next notification is subscribed to
// before them, so none is lost in between. Without writes, nothing polls.
func (s *SQLite) Wait(ctx context.Context, after int64) error {
	s.once.Do(func() { s.notify = newNotifier(s.path) })
	return WaitHead(ctx, after, s.wake, s.notify.subscribe, s.Head, s.notify.recent)
}
