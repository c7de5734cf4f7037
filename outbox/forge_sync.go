package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// syncOverlap is how far behind the newest change seen the next listing
// starts: the services' listings are eventually consistent, and a
// comment can show up a moment after a later one. What is read twice
// is recognized by its id and changes nothing.
const syncOverlap = 2 * time.Minute

// listing is one conditional, paginated GET whose watermark and ETag
// live in gh_state under key: path with query, and the watermark as
// the query value sinceParam.
type listing struct {
	key        string
	path       string
	query      url.Values
	sinceParam string
}

// listed is what fetch read of a listing, for saveListing.
type listed struct {
	l      listing
	pages  [][]byte
	target string
	etag   string
}

// fetch GETs every page of l past its watermark. A 304 (nothing changed
// since the ETag) returns nil pages and costs no rate limit.
func (g *Forge) fetch(ctx context.Context, l listing) (listed, error) {
	since, err := g.state(ctx, l.key+"_since")
	if err != nil {
		return listed{}, err
	}
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	if since != "" {
		q.Set(l.sinceParam, since)
	}
	out := listed{l: l, target: l.path + "?" + q.Encode()}
	old := ""
	if u, _ := g.state(ctx, l.key+"_url"); u == out.target {
		old, _ = g.state(ctx, l.key+"_etag")
	}
	next, first := out.target, true
	for next != "" {
		tag := ""
		if first {
			tag = old
		}
		r, err := g.c.do(ctx, http.MethodGet, next, nil, tag)
		if err != nil {
			return listed{}, err
		}
		if r.Status == http.StatusNotModified {
			out.etag = old
			return out, nil
		}
		if first {
			out.etag = r.ETag
		}
		out.pages = append(out.pages, r.Body)
		next, first = r.Next, false
	}
	return out, nil
}

// sync reads the issues and comments changed since the watermark and
// commits them, as events, with the new watermark and ETags, in one
// transaction. The caller holds the lock.
func (g *Forge) sync(ctx context.Context) error {
	issues, comments, save, err := g.api.changes(ctx, g)
	if err != nil {
		return err
	}
	// A comment on an issue the listing did not show yet (eventual
	// consistency) fetches the issue; a pull request's is skipped.
	known := map[int64]bool{}
	for _, r := range issues {
		known[r.Number] = true
	}
	var keep []note
	for _, c := range comments {
		n := c.Issue
		if !known[n] {
			in, err := g.hasIssue(ctx, n)
			if err != nil {
				return err
			}
			if !in {
				r, ok, err := g.api.issue(ctx, n)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				issues = append(issues, r)
			}
			known[n] = true
		}
		keep = append(keep, c)
	}
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	in := &ingester{g: g, tx: tx, ctx: ctx, now: nowNanos()}
	items, err := g.order(ctx, issues, keep)
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.issue != nil {
			_, err = in.issue(*it.issue, "")
		} else {
			_, err = in.comment(*it.comment, "")
		}
		if err != nil {
			return err
		}
	}
	if err := save(tx); err != nil {
		return err
	}
	if err := g.setState(ctx, tx, "last_sync", strconv.FormatInt(time.Now().UnixNano(), 10)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// What the service said may concern any role (rolewake.go).
	if len(items) > 0 {
		g.pokeAll()
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// saveListing keeps the ETag of the URL read, and moves the watermark
// forward to the newest change less the overlap (never back).
func (g *Forge) saveListing(ctx context.Context, tx *sql.Tx, ls listed, newest time.Time) error {
	l := ls.l
	if ls.pages == nil {
		return nil
	}
	if err := g.setState(ctx, tx, l.key+"_url", ls.target); err != nil {
		return err
	}
	if err := g.setState(ctx, tx, l.key+"_etag", ls.etag); err != nil {
		return err
	}
	if newest.IsZero() {
		return nil
	}
	since := newest.Add(-syncOverlap).UTC()
	var old string
	_ = tx.QueryRowContext(ctx, `SELECT value FROM gh_state WHERE key=?`, l.key+"_since").Scan(&old)
	if t, err := time.Parse(time.RFC3339, old); err == nil && !since.After(t) {
		return nil
	}
	return g.setState(ctx, tx, l.key+"_since", since.Format(time.RFC3339))
}

func (g *Forge) hasIssue(ctx context.Context, n int64) (bool, error) {
	var one int
	err := g.db.QueryRowContext(ctx, `SELECT 1 FROM issues WHERE id=?`, n).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// ingester commits what the service answered into the mirror, as events.
type ingester struct {
	g   *Forge
	tx  *sql.Tx
	ctx context.Context
	now int64
}

func (in *ingester) event(kind EventKind, issue, comment int64, actor, value string) (int64, error) {
	r, err := in.tx.ExecContext(in.ctx, `INSERT INTO events(kind, issue, comment, actor, value, time) VALUES(?,?,?,?,?,?)`,
		string(kind), issue, comment, actor, value, in.now)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// own reads the marker of a body daokit posted (its author is the
// token's user); a marker in anyone else's body is text.
func (in *ingester) own(user, body string) (string, marker, bool) {
	text, m, ok := splitMarker(body)
	if !ok || in.g.login == "" || user != in.g.login {
		return body, marker{}, false
	}
	return text, m, true
}

// trigger records a trigger found in a body daokit posted, unless a
// write of it is under way (its Apply records it).
func (in *ingester) trigger(m marker, ev int64) error {
	if m.Reader == "" || m.Trigger == "" {
		return nil
	}
	var one int
	err := in.tx.QueryRowContext(in.ctx, `SELECT 1 FROM gh_intents WHERE reader=? AND key=?`, m.Reader, m.Trigger).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	_, err = in.tx.ExecContext(in.ctx, `INSERT INTO triggers(reader, key, event) VALUES(?,?,?) ON CONFLICT DO NOTHING`, m.Reader, m.Trigger, ev)
	return err
}

// issue brings the mirror's issue to r and appends an event per
// difference, in the order the SQLite backend would have: opened, then
// labels, assignee, state. actor is whose change it was ("" when read
// by a sync: the author for a new issue, the service's name
// (GitHubActor, GitLabActor) for the rest).
func (in *ingester) issue(r remote, actor string) ([]int64, error) {
	var evs []int64
	add := func(kind EventKind, value string, who string) error {
		id, err := in.event(kind, r.Number, 0, who, value)
		evs = append(evs, id)
		return err
	}
	body, m, mine := in.own(r.User, r.Body)
	author := r.User
	if mine {
		author = m.Actor
	}
	changer := actor
	if changer == "" {
		changer = in.g.c.service // GitHubActor on GitHub
	}
	if actor == "" && !r.Updated.IsZero() {
		// A listing older than what the mirror knows (GitHub's listings
		// lag its writes) would undo a write just made: it is skipped.
		var seen int64
		err := in.tx.QueryRowContext(in.ctx, `SELECT updated FROM gh_issues WHERE number=?`, r.Number).Scan(&seen)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if err == nil && r.Updated.UnixNano() <= seen {
			return nil, nil
		}
	}
	labels, assignee := r.mailboxLabels(), r.assignee()
	var cur struct {
		assignee string
		closed   int
	}
	err := in.tx.QueryRowContext(in.ctx, `SELECT assignee, closed FROM issues WHERE id=?`, r.Number).Scan(&cur.assignee, &cur.closed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		updated := r.Updated.UnixNano()
		if r.Updated.IsZero() {
			updated = in.now
		}
		if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO issues(id, title, body, author, assignee, closed, created, updated) VALUES(?,?,?,?,?,0,?,?)`,
			r.Number, r.Title, body, author, assignee, r.Created.UnixNano(), updated); err != nil {
			return nil, err
		}
		for _, l := range labels {
			if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO labels(issue, label) VALUES(?,?) ON CONFLICT DO NOTHING`, r.Number, l); err != nil {
				return nil, err
			}
		}
		opener := actor
		if opener == "" {
			opener = author
		}
		if err := add(EventOpened, "", opener); err != nil {
			return nil, err
		}
		if mine {
			if err := in.trigger(m, evs[0]); err != nil {
				return nil, err
			}
			if err := in.exported(m, r.Number, 0, evs[0]); err != nil {
				return nil, err
			}
		}
		if r.Closed {
			if _, err := in.tx.ExecContext(in.ctx, `UPDATE issues SET closed=1 WHERE id=?`, r.Number); err != nil {
				return nil, err
			}
			if err := add(EventClosed, "", changer); err != nil {
				return nil, err
			}
		}
		return evs, in.remember(r, author)
	case err != nil:
		return nil, err
	}
	have := map[string]bool{}
	rows, err := in.tx.QueryContext(in.ctx, `SELECT label FROM labels WHERE issue=?`, r.Number)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			rows.Close()
			return nil, err
		}
		have[l] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, l := range labels {
		if have[l] {
			delete(have, l)
			continue
		}
		if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO labels(issue, label) VALUES(?,?)`, r.Number, l); err != nil {
			return nil, err
		}
		if err := add(EventLabeled, l, changer); err != nil {
			return nil, err
		}
	}
	gone := make([]string, 0, len(have))
	for l := range have {
		gone = append(gone, l)
	}
	slices.Sort(gone)
	for _, l := range gone {
		if _, err := in.tx.ExecContext(in.ctx, `DELETE FROM labels WHERE issue=? AND label=?`, r.Number, l); err != nil {
			return nil, err
		}
		if err := add(EventUnlabeled, l, changer); err != nil {
			return nil, err
		}
	}
	if assignee != cur.assignee {
		if err := add(EventAssigned, assignee, changer); err != nil {
			return nil, err
		}
	}
	if closed := r.Closed; closed != (cur.closed != 0) {
		kind := EventClosed
		if !closed {
			kind = EventReopened
		}
		if err := add(kind, "", changer); err != nil {
			return nil, err
		}
	}
	closed := 0
	if r.Closed {
		closed = 1
	}
	updated := in.now
	if !r.Updated.IsZero() {
		updated = max(updated, r.Updated.UnixNano())
	}
	if _, err := in.tx.ExecContext(in.ctx, `UPDATE issues SET title=?, body=?, assignee=?, closed=?, updated=? WHERE id=?`,
		r.Title, body, assignee, closed, updated, r.Number); err != nil {
		return nil, err
	}
	return evs, in.remember(r, "")
}

// remember keeps GitHub's raw labels and assignees of an issue: a label
// write answers with the labels only, and the rest comes from here.
func (in *ingester) remember(r remote, author string) error {
	ls, _ := json.Marshal(nonNil(r.Labels))
	as, _ := json.Marshal(nonNil(r.Assignees))
	var updated int64
	if !r.Updated.IsZero() {
		updated = r.Updated.UnixNano()
	}
	_, err := in.tx.ExecContext(in.ctx, `INSERT INTO gh_issues(number, labels, assignees, author, updated) VALUES(?,?,?,?,?)
		ON CONFLICT(number) DO UPDATE SET labels=excluded.labels, assignees=excluded.assignees, updated=max(updated, excluded.updated)`,
		r.Number, string(ls), string(as), author, updated)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// comment adds a comment GitHub has and the mirror has not, with its
// event; one the mirror has changes nothing (read twice, or posted by
// this backend and read back).
func (in *ingester) comment(c note, actor string) (int64, error) {
	var one int
	err := in.tx.QueryRowContext(in.ctx, `SELECT 1 FROM comments WHERE id=?`, c.ID).Scan(&one)
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	body, m, mine := in.own(c.User, c.Body)
	author := c.User
	if mine {
		author = m.Actor
	}
	if actor != "" {
		author = actor
	}
	n := c.Issue
	if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO comments(id, issue, author, body, created) VALUES(?,?,?,?,?)`,
		c.ID, n, author, body, c.Created.UnixNano()); err != nil {
		return 0, err
	}
	ev, err := in.event(EventCommented, n, c.ID, author, "")
	if err != nil {
		return 0, err
	}
	if mine {
		if err := in.trigger(m, ev); err != nil {
			return 0, err
		}
		if err := in.exported(m, n, c.ID, ev); err != nil {
			return 0, err
		}
	}
	_, err = in.tx.ExecContext(in.ctx, `UPDATE issues SET updated=max(updated, ?) WHERE id=?`, in.now, n)
	return ev, err
}

// order puts what a sync read in the order it happened, as far as the
// listings tell: an issue new to the mirror when it was opened, an
// issue the mirror has when it was last changed (a listing holds only
// the last state), a comment when it was posted; on a tie the issue
// first, whose change cannot be later than the comment that bumped it.
func (g *Forge) order(ctx context.Context, issues []remote, comments []note) ([]step, error) {
	type timed struct {
		t time.Time
		s step
	}
	var all []timed
	for i := range issues {
		r := &issues[i]
		in, err := g.hasIssue(ctx, r.Number)
		if err != nil {
			return nil, err
		}
		t := r.Updated
		if !in {
			t = r.Created
		}
		all = append(all, timed{t, step{issue: r}})
	}
	for i := range comments {
		all = append(all, timed{comments[i].Created, step{comment: &comments[i]}})
	}
	slices.SortStableFunc(all, func(a, b timed) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		if (a.s.issue != nil) == (b.s.issue != nil) {
			return 0
		}
		if a.s.issue != nil {
			return -1
		}
		return 1
	})
	out := make([]step, len(all))
	for i, x := range all {
		out[i] = x.s
	}
	return out, nil
}
