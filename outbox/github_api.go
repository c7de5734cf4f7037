package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// githubAPI is the forge of GitHub's REST API.
type githubAPI struct{ c *apiClient }

func (a *githubAPI) who(ctx context.Context) (string, error) {
	var u ghUser
	err := a.c.getJSON(ctx, "/user", &u)
	return u.Login, err
}

// changes reads two listings: the repository's issues and its issue
// comments, each since its own watermark. Pull requests (issues to
// GitHub's listings) are left out.
func (a *githubAPI) changes(ctx context.Context, g *Forge) ([]remote, []note, func(*sql.Tx) error, error) {
	base := url.Values{"sort": {"updated"}, "direction": {"asc"}, "per_page": {"100"}}
	iq := url.Values{"state": {"all"}}
	for k, v := range base {
		iq[k] = v
	}
	il, err := g.fetch(ctx, listing{key: "issues", path: a.c.repoPath("/issues"), query: iq, sinceParam: "since"})
	if err != nil {
		return nil, nil, nil, err
	}
	cl, err := g.fetch(ctx, listing{key: "comments", path: a.c.repoPath("/issues/comments"), query: base, sinceParam: "since"})
	if err != nil {
		return nil, nil, nil, err
	}
	var issues []remote
	var newest, cnewest time.Time
	for _, p := range il.pages {
		var gs []ghIssue
		if err := json.Unmarshal(p, &gs); err != nil {
			return nil, nil, nil, err
		}
		for _, gi := range gs {
			if gi.isPull() {
				continue
			}
			issues = append(issues, remoteOf(gi))
			newest = later(newest, gi.UpdatedAt)
		}
	}
	var notes []note
	for _, p := range cl.pages {
		var cs []ghComment
		if err := json.Unmarshal(p, &cs); err != nil {
			return nil, nil, nil, err
		}
		for _, c := range cs {
			notes = append(notes, c.note())
			cnewest = later(cnewest, c.UpdatedAt)
		}
	}
	save := func(tx *sql.Tx) error {
		if err := g.saveListing(ctx, tx, il, newest); err != nil {
			return err
		}
		return g.saveListing(ctx, tx, cl, cnewest)
	}
	return issues, notes, save, nil
}

func (a *githubAPI) issue(ctx context.Context, n int64) (remote, bool, error) {
	var gi ghIssue
	err := a.c.getJSON(ctx, a.c.issuePath(n, ""), &gi)
	var ae *APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusGone) {
		return remote{}, false, nil
	}
	if err != nil || gi.isPull() {
		return remote{}, false, err
	}
	return remoteOf(gi), true, nil
}

func (a *githubAPI) open(ctx context.Context, title, body string, labels, assignees []string) (remote, error) {
	in := map[string]any{"title": title, "body": body}
	if len(assignees) > 0 {
		in["assignees"] = assignees
	}
	if len(labels) > 0 {
		in["labels"] = labels
	}
	var gi ghIssue
	if err := a.c.sendJSON(ctx, http.MethodPost, a.c.repoPath("/issues"), in, &gi); err != nil {
		return remote{}, err
	}
	return remoteOf(gi), nil
}

func (a *githubAPI) patch(ctx context.Context, n int64, in map[string]any) (remote, error) {
	var gi ghIssue
	if err := a.c.sendJSON(ctx, http.MethodPatch, a.c.issuePath(n, ""), in, &gi); err != nil {
		return remote{}, err
	}
	return remoteOf(gi), nil
}

func (a *githubAPI) setClosed(ctx context.Context, n int64, closed bool) (remote, error) {
	state := "open"
	if closed {
		state = "closed"
	}
	return a.patch(ctx, n, map[string]any{"state": state})
}

func (a *githubAPI) setAssignees(ctx context.Context, n int64, logins []string) (remote, error) {
	return a.patch(ctx, n, map[string]any{"assignees": logins})
}

func (a *githubAPI) addLabels(ctx context.Context, cur remote, add []string) ([]string, error) {
	var ls []ghLabel
	if err := a.c.sendJSON(ctx, http.MethodPost, a.c.issuePath(cur.Number, "/labels"), map[string]any{"labels": add}, &ls); err != nil {
		return nil, err
	}
	return labelNames(ls), nil
}

func (a *githubAPI) removeLabel(ctx context.Context, cur remote, l string) ([]string, error) {
	var ls []ghLabel
	err := a.c.sendJSON(ctx, http.MethodDelete, a.c.issuePath(cur.Number, "/labels/"+url.PathEscape(l)), nil, &ls)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		// Taken away already (by a person, or by the crashed attempt).
		return slices.DeleteFunc(slices.Clone(cur.Labels), func(x string) bool { return x == l }), nil
	}
	if err != nil {
		return nil, err
	}
	return labelNames(ls), nil
}

func labelNames(ls []ghLabel) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func (a *githubAPI) comment(ctx context.Context, n int64, body string) (note, error) {
	var c ghComment
	if err := a.c.sendJSON(ctx, http.MethodPost, a.c.issuePath(n, "/comments"), map[string]any{"body": body}, &c); err != nil {
		return note{}, err
	}
	return c.note(), nil
}

// findIssue looks among login's newest issues for one a crashed
// attempt opened (same title, same marked body).
func (a *githubAPI) findIssue(ctx context.Context, login, title, body string) (remote, bool, error) {
	q := url.Values{"creator": {login}, "state": {"all"}, "sort": {"created"}, "direction": {"desc"}, "per_page": {"100"}}
	var gs []ghIssue
	if err := a.c.getJSON(ctx, a.c.repoPath("/issues?"+q.Encode()), &gs); err != nil {
		return remote{}, false, err
	}
	for _, gi := range gs {
		if gi.Title == title && gi.Body != nil && sameBody(*gi.Body, body) {
			return remoteOf(gi), true, nil
		}
	}
	return remote{}, false, nil
}

// findComment looks through an issue's comments for one a crashed
// attempt posted (the same marked body, by login).
func (a *githubAPI) findComment(ctx context.Context, n int64, login, body string) (note, bool, error) {
	return findNote(ctx, a.c, a.c.issuePath(n, "/comments?per_page=100"), login, body, func(p []byte) ([]note, error) {
		var cs []ghComment
		err := json.Unmarshal(p, &cs)
		out := make([]note, 0, len(cs))
		for _, c := range cs {
			out = append(out, c.note())
		}
		return out, err
	})
}

// sameBody: a body as posted and as read back (the services trim).
func sameBody(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// findNote pages through a listing of comments from first for one login
// posted with body; decode reads one page.
func findNote(ctx context.Context, c *apiClient, first, login, body string, decode func([]byte) ([]note, error)) (note, bool, error) {
	var found note
	ok := false
	err := eachNote(ctx, c, first, decode, func(n note) bool {
		if n.User == login && sameBody(n.Body, body) {
			found, ok = n, true
		}
		return !ok
	})
	return found, ok, err
}

// eachNote gives f every comment of a paginated listing from first,
// until f answers false; decode reads one page.
func eachNote(ctx context.Context, c *apiClient, first string, decode func([]byte) ([]note, error), f func(note) bool) error {
	next := first
	for next != "" {
		r, err := c.do(ctx, http.MethodGet, next, nil, "")
		if err != nil {
			return err
		}
		ns, err := decode(r.Body)
		if err != nil {
			return err
		}
		for _, n := range ns {
			if !f(n) {
				return nil
			}
		}
		next = r.Next
	}
	return nil
}
