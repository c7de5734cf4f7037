package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// step is one thing the service answered to a write, in order: the issue as
// it now is, or a new comment.
type step struct {
	issue   *remote
	comment *note
}

// Apply writes c through to the service and commits what it answered,
// the triggers and the cursor in one transaction of the mirror.
//
// GitHub and GitLab have no transactions, so a write is made safe differently: the
// mirror is read fresh first (a conditional request), under the lock
// every process of the mirror takes; a triggered part is written down
// as under way (gh_intents) before its first request, and a part found
// under way after a crash is redone looking first for what the crashed
// attempt posted (by the marker in its body), so nothing is posted
// twice; labels, assignees and state are set, not toggled, so redoing
// them changes nothing. IfAssignee and Limits are checked against the
// fresh mirror: exact among the processes of one machine, close
// (a window of one request) for Leads on several machines.
func (g *Forge) Apply(ctx context.Context, c Change) (Result, error) {
	if g.readOnly {
		return Result{}, ErrReadOnly
	}
	if err := validateChange(c); err != nil {
		return Result{}, err
	}
	var res Result
	err := g.locked(func() error {
		var err error
		res, err = g.apply(ctx, c)
		return err
	})
	return res, err
}

func (g *Forge) apply(ctx context.Context, c Change) (Result, error) {
	parts := append([]Part{{Trigger: c.Trigger, Ops: c.Ops}}, c.Parts...)
	// The service has no rollback: a change that names an issue it does
	// not open is refused before its first write, as the SQLite
	// backend's transaction refuses it whole.
	opened := 0
	for _, p := range parts {
		for _, op := range p.Ops {
			if op.Kind == OpOpen {
				opened++
			} else if op.Issue < 0 && int(-op.Issue) > opened {
				return Result{}, fmt.Errorf("%w: issue %d of this change not opened yet", ErrInvalid, op.Issue)
			}
		}
	}
	// A change without operations (a cursor moved, triggers recorded)
	// is the mirror's alone: the service is not asked.
	if slices.ContainsFunc(parts, func(p Part) bool { return len(p.Ops) > 0 }) {
		if err := g.sync(ctx); err != nil {
			return Result{}, err
		}
		// A change is not left half done for want of quota: an assign
		// takes up to three requests, any other operation one.
		n := 0
		for _, p := range parts {
			n += 3 * len(p.Ops)
		}
		if err := g.c.reserve(ctx, n); err != nil {
			return Result{}, err
		}
	}
	if c.Reader != "" && c.UpTo > 0 {
		cur, err := g.Cursor(ctx, c.Reader)
		if err != nil {
			return Result{}, err
		}
		if cur >= c.UpTo {
			return Result{Stale: true}, nil
		}
	}
	for _, lim := range c.Limits {
		n, err := g.countLimit(ctx, lim)
		if err != nil {
			return Result{}, err
		}
		if n >= lim.Max {
			return Result{OverLimit: true}, nil
		}
	}
	w := &writer{g: g, ctx: ctx, c: c, issues: map[int64]remote{}}
	var dups, losts []bool
	var record []string
	for _, part := range parts {
		dup, recovering := false, false
		if part.Trigger != "" {
			var err error
			if dup, recovering, err = g.intend(ctx, c.Reader, part.Trigger); err != nil {
				return Result{}, err
			}
			if !dup {
				record = append(record, part.Trigger)
			}
		}
		dups = append(dups, dup)
		lost := false
		w.trigger, w.recovering = part.Trigger, recovering
		for _, op := range part.Ops {
			if dup {
				break
			}
			if err := w.op(op); errors.Is(err, errLost) {
				lost = true
				break
			} else if err != nil {
				// What the service did is kept; the intents stay, so the
				// retry recovers instead of posting again.
				if _, cerr := g.commit(ctx, c, w.steps, nil, false); cerr != nil {
					return Result{}, errors.Join(err, cerr)
				}
				return Result{}, err
			}
		}
		losts = append(losts, lost)
	}
	evs, err := g.commit(ctx, c, w.steps, record, true)
	if err != nil {
		return Result{}, err
	}
	res := w.res
	res.Events = evs
	res.Duplicate, res.PartDuplicate = dups[0], dups[1:]
	res.Lost, res.PartLost = losts[0], losts[1:]
	return res, nil
}

// intend writes a triggered part down as under way. dup: the trigger
// was answered already; recovering: an earlier attempt crashed in it.
func (g *Forge) intend(ctx context.Context, reader, trigger string) (dup, recovering bool, err error) {
	var one int
	err = g.db.QueryRowContext(ctx, `SELECT 1 FROM triggers WHERE reader=? AND key=?`, reader, trigger).Scan(&one)
	if err == nil {
		return true, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, false, err
	}
	r, err := g.db.ExecContext(ctx, `INSERT INTO gh_intents(reader, key) VALUES(?,?) ON CONFLICT DO NOTHING`, reader, trigger)
	if err != nil {
		return false, false, err
	}
	n, _ := r.RowsAffected()
	return false, n == 0, nil
}

// commit ingests the steps as c.Actor's events; when done, it also
// records the triggers, drops their intents and moves the cursor.
func (g *Forge) commit(ctx context.Context, c Change, steps []step, triggers []string, done bool) ([]int64, error) {
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	in := &ingester{g: g, tx: tx, ctx: ctx, now: nowNanos()}
	var evs []int64
	for _, s := range steps {
		if s.issue != nil {
			ids, err := in.issue(*s.issue, c.Actor)
			if err != nil {
				return nil, err
			}
			evs = append(evs, ids...)
			continue
		}
		id, err := in.comment(*s.comment, c.Actor)
		if err != nil {
			return nil, err
		}
		if id > 0 {
			evs = append(evs, id)
		}
	}
	if done {
		for _, t := range triggers {
			if _, err := tx.ExecContext(ctx, `INSERT INTO triggers(reader, key, event) VALUES(?,?,?) ON CONFLICT DO NOTHING`, c.Reader, t, c.UpTo); err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM gh_intents WHERE reader=? AND key=?`, c.Reader, t); err != nil {
				return nil, err
			}
		}
		if c.Reader != "" && c.UpTo > 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO cursors(reader, event) VALUES(?,?)
				ON CONFLICT(reader) DO UPDATE SET event=excluded.event WHERE excluded.event > cursors.event`, c.Reader, c.UpTo); err != nil {
				return nil, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return evs, err
	}
	// The mirror's own writes wake every role's Lead (rolewake.go).
	g.pokeAll()
	return evs, nil
}

func (g *Forge) countLimit(ctx context.Context, lim Limit) (int, error) {
	args := []any{lim.Label}
	for _, as := range lim.Assignees {
		args = append(args, as)
	}
	q := `SELECT count(*) FROM labels l JOIN issues i ON i.id = l.issue
		WHERE l.label = ? AND i.closed = 0 AND i.assignee IN (?` + strings.Repeat(",?", len(lim.Assignees)-1) + `)`
	var n int
	err := g.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// writer does the operations of one Change against the service.
type writer struct {
	g          *Forge
	ctx        context.Context
	c          Change
	trigger    string
	recovering bool
	res        Result
	steps      []step
	// issues are the issues as the service last answered in this Change.
	issues map[int64]remote
}

func (w *writer) mark() marker {
	return marker{Actor: w.c.Actor, Reader: w.c.Reader, Trigger: w.trigger, Answered: w.c.answered}
}

// current is the issue as the service has it: as answered in this Change,
// else as the fresh mirror has it.
func (w *writer) current(op Op) (remote, error) {
	n := op.Issue
	if n < 0 {
		k := int(-n)
		if k > len(w.res.Issues) {
			return remote{}, fmt.Errorf("%w: issue %d of this change not opened yet", ErrInvalid, -k)
		}
		n = w.res.Issues[k-1]
	}
	if r, ok := w.issues[n]; ok {
		return r, nil
	}
	var r remote
	var closed int
	var ls, as string
	var created, updated int64
	// updated is the service's time (gh_issues), never the mirror's local one:
	// it is compared with its listings.
	err := w.g.db.QueryRowContext(w.ctx, `SELECT i.title, i.closed, i.created, g.updated, g.labels, g.assignees, g.author
		FROM issues i JOIN gh_issues g ON g.number = i.id WHERE i.id=?`, n).Scan(&r.Title, &closed, &created, &updated, &ls, &as, &r.User)
	if errors.Is(err, sql.ErrNoRows) {
		return remote{}, fmt.Errorf("%w: issue #%d", ErrNotFound, n)
	}
	if err != nil {
		return remote{}, err
	}
	r.Number, r.Closed, r.Created = n, closed != 0, fromNanos(created)
	if updated > 0 {
		r.Updated = fromNanos(updated)
	}
	_ = json.Unmarshal([]byte(ls), &r.Labels)
	_ = json.Unmarshal([]byte(as), &r.Assignees)
	// The body is the mirror's (marker stripped); a step never writes
	// a body back, so the stripped one is what the mirror keeps.
	if err := w.g.db.QueryRowContext(w.ctx, `SELECT body FROM issues WHERE id=?`, n).Scan(&r.Body); err != nil {
		return remote{}, err
	}
	return r, nil
}

func (w *writer) answered(r remote) {
	w.issues[r.Number] = r
	w.steps = append(w.steps, step{issue: &r})
}

func (w *writer) op(op Op) error {
	if op.Kind == OpOpen {
		return w.open(op)
	}
	cur, err := w.current(op)
	if err != nil {
		return err
	}
	switch op.Kind {
	case OpComment:
		return w.comment(cur.Number, op.Body)
	case OpLabel:
		var add []string
		for _, l := range op.Labels {
			if !slices.Contains(cur.Labels, l) && !slices.Contains(add, l) {
				add = append(add, l)
			}
		}
		if len(add) == 0 {
			return nil
		}
		return w.addLabels(cur, add)
	case OpUnlabel:
		for _, l := range op.Labels {
			if slices.Contains(cur.Labels, l) {
				var err error
				if cur, err = w.removeLabel(cur, l); err != nil {
					return err
				}
			}
		}
		return nil
	case OpAssign:
		if op.IfAssignee != nil && !slices.Contains(op.IfAssignee, cur.assignee()) {
			return errLost
		}
		return w.assign(cur, op.Assignee)
	case OpClose, OpReopen:
		if cur.Closed == (op.Kind == OpClose) {
			return nil
		}
		r, err := w.g.api.setClosed(w.ctx, cur.Number, op.Kind == OpClose)
		if err != nil {
			return err
		}
		w.answered(r)
	}
	return nil
}

// assign makes name the issue's one assignee: a login through
// the service's assignees, any other name (a Lead) through its assignee
// label; "" takes both away.
func (w *writer) assign(cur remote, name string) error {
	if cur.assignee() == name && (name == "" || len(cur.Assignees) <= 1) {
		return nil
	}
	login := name != "" && !strings.Contains(name, ":") && w.g.api.username(name)
	// A login is set before the assignee labels go, and a label's
	// rivals go before it comes: the assignee label wins over the
	// service's assignees, so the issue passes through no other
	// assignee on the way (one event, as on SQLite).
	if login || name == "" {
		want := []string{}
		if login {
			want = []string{name}
		}
		if !slices.Equal(cur.Assignees, want) && (len(want) > 0 || len(cur.Assignees) > 0) {
			r, err := w.g.api.setAssignees(w.ctx, cur.Number, want)
			if err != nil {
				return err
			}
			w.answered(r)
			cur = r
		}
	}
	for _, l := range slices.Clone(cur.Labels) {
		if strings.HasPrefix(l, AssigneeLabelPrefix) && l != AssigneeLabelPrefix+name {
			var err error
			if cur, err = w.removeLabel(cur, l); err != nil {
				return err
			}
		}
	}
	if login || name == "" || slices.Contains(cur.Labels, AssigneeLabelPrefix+name) {
		return nil
	}
	return w.addLabels(cur, []string{AssigneeLabelPrefix + name})
}

func (w *writer) addLabels(cur remote, add []string) error {
	ls, err := w.g.api.addLabels(w.ctx, cur, add)
	if err != nil {
		return err
	}
	cur.Labels = ls
	w.answered(cur)
	return nil
}

func (w *writer) removeLabel(cur remote, l string) (remote, error) {
	ls, err := w.g.api.removeLabel(w.ctx, cur, l)
	if err != nil {
		return cur, err
	}
	cur.Labels = ls
	w.answered(cur)
	return cur, nil
}

func (w *writer) open(op Op) error {
	body := withMarker(op.Body, w.mark())
	if w.recovering {
		if r, ok, err := w.g.api.findIssue(w.ctx, w.g.login, op.Title, body); err != nil {
			return err
		} else if ok {
			w.res.Issues = append(w.res.Issues, r.Number)
			w.answered(r)
			return nil
		}
	}
	labels := slices.Clone(op.Labels)
	var assignees []string
	if a := op.Assignee; a != "" {
		if strings.Contains(a, ":") || !w.g.api.username(a) {
			labels = append(labels, AssigneeLabelPrefix+a)
		} else {
			assignees = []string{a}
		}
	}
	r, err := w.g.api.open(w.ctx, op.Title, body, labels, assignees)
	if err != nil {
		return err
	}
	w.res.Issues = append(w.res.Issues, r.Number)
	w.answered(r)
	return nil
}

func (w *writer) comment(n int64, text string) error {
	body := withMarker(text, w.mark())
	if w.recovering {
		if c, ok, err := w.g.api.findComment(w.ctx, n, w.g.login, body); err != nil {
			return err
		} else if ok {
			w.res.Comments = append(w.res.Comments, c.ID)
			w.steps = append(w.steps, step{comment: &c})
			return nil
		}
	}
	c, err := w.g.api.comment(w.ctx, n, body)
	if err != nil {
		return err
	}
	w.res.Comments = append(w.res.Comments, c.ID)
	w.steps = append(w.steps, step{comment: &c})
	return nil
}
