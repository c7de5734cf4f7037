package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// gitlabAPI is the forge of GitLab's REST API v4.
type gitlabAPI struct{ c *apiClient }

func (a *gitlabAPI) who(ctx context.Context) (string, error) {
	var u glUser
	err := a.c.getJSON(ctx, "/user", &u)
	return u.Username, err
}

// changes reads the project's issues updated since the watermark, then
// the notes of each (GitLab lists notes per issue only; a new note
// bumps its issue's updated_at, so the issue listing finds it). System
// notes (GitLab's record of label and state changes) are left out: the
// issue's state says the same.
func (a *gitlabAPI) changes(ctx context.Context, g *Forge) ([]remote, []note, func(*sql.Tx) error, error) {
	q := url.Values{"scope": {"all"}, "order_by": {"updated_at"}, "sort": {"asc"}, "per_page": {"100"}}
	il, err := g.fetch(ctx, listing{key: "issues", path: a.c.repoPath("/issues"), query: q, sinceParam: "updated_after"})
	if err != nil {
		return nil, nil, nil, err
	}
	var issues []remote
	var notes []note
	var newest time.Time
	for _, p := range il.pages {
		var gs []glIssue
		if err := json.Unmarshal(p, &gs); err != nil {
			return nil, nil, nil, err
		}
		for _, gi := range gs {
			issues = append(issues, gi.remote())
			newest = later(newest, gi.UpdatedAt)
			ns, err := a.notes(ctx, gi.IID, "asc")
			if err != nil {
				return nil, nil, nil, err
			}
			notes = append(notes, ns...)
		}
	}
	save := func(tx *sql.Tx) error { return g.saveListing(ctx, tx, il, newest) }
	return issues, notes, save, nil
}

func (a *gitlabAPI) notesPath(n int64, order string) string {
	q := url.Values{"sort": {order}, "order_by": {"created_at"}, "per_page": {"100"}}
	return a.c.issuePath(n, "/notes?"+q.Encode())
}

// notes are every note people and daokit wrote on issue n.
func (a *gitlabAPI) notes(ctx context.Context, n int64, order string) ([]note, error) {
	var out []note
	err := eachNote(ctx, a.c, a.notesPath(n, order), decodeNotes(n), func(x note) bool {
		out = append(out, x)
		return true
	})
	return out, err
}

// decodeNotes reads a page of issue n's notes, without system notes.
func decodeNotes(n int64) func([]byte) ([]note, error) {
	return func(p []byte) ([]note, error) {
		var gs []glNote
		if err := json.Unmarshal(p, &gs); err != nil {
			return nil, err
		}
		out := make([]note, 0, len(gs))
		for _, g := range gs {
			if !g.System {
				out = append(out, g.note(n))
			}
		}
		return out, nil
	}
}

func (a *gitlabAPI) issue(ctx context.Context, n int64) (remote, bool, error) {
	var gi glIssue
	err := a.c.getJSON(ctx, a.c.issuePath(n, ""), &gi)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return remote{}, false, nil
	}
	if err != nil {
		return remote{}, false, err
	}
	return gi.remote(), true, nil
}

// userIDs are the ids of the users named; a name GitLab does not know
// is left out, as GitHub leaves out an assignee it cannot assign.
func (a *gitlabAPI) userIDs(ctx context.Context, names []string) ([]int64, error) {
	ids := []int64{}
	for _, name := range names {
		var us []glUser
		if err := a.c.getJSON(ctx, "/users?"+url.Values{"username": {name}}.Encode(), &us); err != nil {
			return nil, err
		}
		for _, u := range us {
			if strings.EqualFold(u.Username, name) {
				ids = append(ids, u.ID)
				break
			}
		}
	}
	return ids, nil
}

func (a *gitlabAPI) open(ctx context.Context, title, body string, labels, assignees []string) (remote, error) {
	in := map[string]any{"title": title, "description": body}
	if len(labels) > 0 {
		in["labels"] = strings.Join(labels, ",")
	}
	if len(assignees) > 0 {
		ids, err := a.userIDs(ctx, assignees)
		if err != nil {
			return remote{}, err
		}
		in["assignee_ids"] = ids
	}
	var gi glIssue
	if err := a.c.sendJSON(ctx, http.MethodPost, a.c.repoPath("/issues"), in, &gi); err != nil {
		return remote{}, err
	}
	return gi.remote(), nil
}

// edit changes issue n (PUT, GitLab's edit of an issue) and answers it
// as it now is.
func (a *gitlabAPI) edit(ctx context.Context, n int64, in map[string]any) (remote, error) {
	var gi glIssue
	if err := a.c.sendJSON(ctx, http.MethodPut, a.c.issuePath(n, ""), in, &gi); err != nil {
		return remote{}, err
	}
	return gi.remote(), nil
}

func (a *gitlabAPI) setClosed(ctx context.Context, n int64, closed bool) (remote, error) {
	ev := "reopen"
	if closed {
		ev = "close"
	}
	return a.edit(ctx, n, map[string]any{"state_event": ev})
}

func (a *gitlabAPI) setAssignees(ctx context.Context, n int64, logins []string) (remote, error) {
	ids, err := a.userIDs(ctx, logins)
	if err != nil {
		return remote{}, err
	}
	return a.edit(ctx, n, map[string]any{"assignee_ids": ids})
}

// addLabels and removeLabel use add_labels and remove_labels, which
// change only the labels named: a label a person set meanwhile stays,
// and taking away a label that is gone is no error.
func (a *gitlabAPI) addLabels(ctx context.Context, cur remote, add []string) ([]string, error) {
	r, err := a.edit(ctx, cur.Number, map[string]any{"add_labels": strings.Join(add, ",")})
	return r.Labels, err
}

func (a *gitlabAPI) removeLabel(ctx context.Context, cur remote, l string) ([]string, error) {
	r, err := a.edit(ctx, cur.Number, map[string]any{"remove_labels": l})
	return r.Labels, err
}

func (a *gitlabAPI) comment(ctx context.Context, n int64, body string) (note, error) {
	var gn glNote
	if err := a.c.sendJSON(ctx, http.MethodPost, a.c.issuePath(n, "/notes"), map[string]any{"body": body}, &gn); err != nil {
		return note{}, err
	}
	return gn.note(n), nil
}

// findIssue looks among login's newest issues for one a crashed
// attempt opened (same title, same marked body).
func (a *gitlabAPI) findIssue(ctx context.Context, login, title, body string) (remote, bool, error) {
	q := url.Values{"author_username": {login}, "scope": {"all"}, "order_by": {"created_at"}, "sort": {"desc"}, "per_page": {"100"}}
	var gs []glIssue
	if err := a.c.getJSON(ctx, a.c.repoPath("/issues?"+q.Encode()), &gs); err != nil {
		return remote{}, false, err
	}
	for _, gi := range gs {
		if gi.Title == title && gi.Description != nil && sameBody(*gi.Description, body) {
			return gi.remote(), true, nil
		}
	}
	return remote{}, false, nil
}

// findComment looks through an issue's notes, newest first, for one a
// crashed attempt posted (the same marked body, by login).
func (a *gitlabAPI) findComment(ctx context.Context, n int64, login, body string) (note, bool, error) {
	return findNote(ctx, a.c, a.notesPath(n, "desc"), login, body, decodeNotes(n))
}
