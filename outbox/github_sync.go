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
// starts: GitHub's listings are eventually consistent, and a comment
// can show up a moment after a later one. What is read twice is
// recognized by its id and changes nothing.
const syncOverlap = 2 * time.Minute

// listing is one conditional, paginated GET whose watermark and ETag
// live in gh_state under key.
type listing struct {
	key  string
	path string
}

// fetch GETs every page of l past its watermark. A 304 (nothing changed
// since the ETag) returns nil pages and costs no rate limit.
func (g *GitHub) fetch(ctx context.Context, l listing) (pages [][]byte, target, etag string, err error) {
	since, err := g.state(ctx, l.key+"_since")
	if err != nil {
		return nil, "", "", err
	}
	q := url.Values{"sort": {"updated"}, "direction": {"asc"}, "per_page": {"100"}}
	if l.key == "issues" {
		q.Set("state", "all")
	}
	if since != "" {
		q.Set("since", since)
	}
	target = l.path + "?" + q.Encode()
	old := ""
	if u, _ := g.state(ctx, l.key+"_url"); u == target {
		old, _ = g.state(ctx, l.key+"_etag")
	}
	next, first := target, true
	for next != "" {
		tag := ""
		if first {
			tag = old
		}
		r, err := g.c.do(ctx, http.MethodGet, next, nil, tag)
		if err != nil {
			return nil, "", "", err
		}
		if r.Status == http.StatusNotModified {
			return nil, target, old, nil
		}
		if first {
			etag = r.ETag
		}
		pages = append(pages, r.Body)
		next, first = r.Next, false
	}
	return pages, target, etag, nil
}

// sync reads the issues and comments changed since the watermark and
// commits them, as events, with the new watermark and ETags, in one
// transaction. The caller holds the lock.
func (g *GitHub) sync(ctx context.Context) error {
	il := listing{key: "issues", path: g.c.repoPath("/issues")}
	cl := listing{key: "comments", path: g.c.repoPath("/issues/comments")}
	ipages, iurl, ietag, err := g.fetch(ctx, il)
	if err != nil {
		return err
	}
	cpages, curl, cetag, err := g.fetch(ctx, cl)
	if err != nil {
		return err
	}
	var issues []remote
	newest := time.Time{}
	for _, p := range ipages {
		var gs []ghIssue
		if err := json.Unmarshal(p, &gs); err != nil {
			return err
		}
		for _, gi := range gs {
			if len(gi.PullRequest) > 0 && string(gi.PullRequest) != "null" {
				continue
			}
			issues = append(issues, remoteOf(gi))
			newest = later(newest, gi.UpdatedAt)
		}
	}
	var comments []ghComment
	cnewest := time.Time{}
	for _, p := range cpages {
		var cs []ghComment
		if err := json.Unmarshal(p, &cs); err != nil {
			return err
		}
		comments = append(comments, cs...)
		for _, c := range cs {
			cnewest = later(cnewest, c.UpdatedAt)
		}
	}
	// A comment on an issue the listing did not show yet (eventual
	// consistency) fetches the issue; a pull request's is skipped.
	known := map[int64]bool{}
	for _, r := range issues {
		known[r.Number] = true
	}
	var keep []ghComment
	for _, c := range comments {
		n := c.issueNumber()
		if !known[n] {
			in, err := g.hasIssue(ctx, n)
			if err != nil {
				return err
			}
			if !in {
				var gi ghIssue
				err := g.c.getJSON(ctx, g.c.repoPath("/issues/"+strconv.FormatInt(n, 10)), &gi)
				var ae *APIError
				if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusGone) {
					continue
				}
				if err != nil {
					return err
				}
				if len(gi.PullRequest) > 0 && string(gi.PullRequest) != "null" {
					continue
				}
				issues = append(issues, remoteOf(gi))
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
	if err := g.saveListing(ctx, tx, il, ipages != nil, iurl, ietag, newest); err != nil {
		return err
	}
	if err := g.saveListing(ctx, tx, cl, cpages != nil, curl, cetag, cnewest); err != nil {
		return err
	}
	if err := g.setState(ctx, tx, "last_sync", strconv.FormatInt(time.Now().UnixNano(), 10)); err != nil {
		return err
	}
	return tx.Commit()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// saveListing keeps the ETag of the URL read, and moves the watermark
// forward to the newest change less the overlap (never back).
func (g *GitHub) saveListing(ctx context.Context, tx *sql.Tx, l listing, changed bool, target, etag string, newest time.Time) error {
	if !changed {
		return nil
	}
	if err := g.setState(ctx, tx, l.key+"_url", target); err != nil {
		return err
	}
	if err := g.setState(ctx, tx, l.key+"_etag", etag); err != nil {
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

func (g *GitHub) hasIssue(ctx context.Context, n int64) (bool, error) {
	var one int
	err := g.db.QueryRowContext(ctx, `SELECT 1 FROM issues WHERE id=?`, n).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// ingester commits what GitHub answered into the mirror, as events.
type ingester struct {
	g   *GitHub
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
// by a sync: the author for a new issue, GitHubActor for the rest).
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
		changer = GitHubActor
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
func (in *ingester) comment(c ghComment, actor string) (int64, error) {
	var one int
	err := in.tx.QueryRowContext(in.ctx, `SELECT 1 FROM comments WHERE id=?`, c.ID).Scan(&one)
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	body, m, mine := in.own(c.User.Login, c.Body)
	author := c.User.Login
	if mine {
		author = m.Actor
	}
	if actor != "" {
		author = actor
	}
	n := c.issueNumber()
	if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO comments(id, issue, author, body, created) VALUES(?,?,?,?,?)`,
		c.ID, n, author, body, c.CreatedAt.UnixNano()); err != nil {
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
	}
	_, err = in.tx.ExecContext(in.ctx, `UPDATE issues SET updated=max(updated, ?) WHERE id=?`, in.now, n)
	return ev, err
}

// order puts what a sync read in the order it happened, as far as the
// listings tell: an issue new to the mirror when it was opened, an
// issue the mirror has when it was last changed (a listing holds only
// the last state), a comment when it was posted; on a tie the issue
// first, whose change cannot be later than the comment that bumped it.
func (g *GitHub) order(ctx context.Context, issues []remote, comments []ghComment) ([]step, error) {
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
		all = append(all, timed{comments[i].CreatedAt, step{comment: &comments[i]}})
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
