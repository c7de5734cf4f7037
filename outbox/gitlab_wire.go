package outbox

import "time"

// The shapes of GitLab's REST answers that the backend reads (a subset:
// unknown fields are ignored). GitLab's labels are plain strings, its
// issues are numbered per project by iid (id is instance-wide), and a
// note's id is instance-wide.
type glUser struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type glIssue struct {
	ID          int64     `json:"id"`
	IID         int64     `json:"iid"`
	Title       string    `json:"title"`
	Description *string   `json:"description"`
	State       string    `json:"state"`
	Labels      []string  `json:"labels"`
	Author      glUser    `json:"author"`
	Assignees   []glUser  `json:"assignees"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type glNote struct {
	ID          int64     `json:"id"`
	Body        string    `json:"body"`
	Author      glUser    `json:"author"`
	System      bool      `json:"system"`
	NoteableIID int64     `json:"noteable_iid"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type glAccess struct {
	AccessLevel int `json:"access_level"`
}

type glProject struct {
	PathWithNamespace string `json:"path_with_namespace"`
	IssuesEnabled     bool   `json:"issues_enabled"`
	Permissions       struct {
		ProjectAccess *glAccess `json:"project_access"`
		GroupAccess   *glAccess `json:"group_access"`
	} `json:"permissions"`
}

// glReporter is the access level that may set labels and assignees
// (Reporter; Guest may only comment).
const glReporter = 20

func (g glIssue) remote() remote {
	r := remote{Number: g.IID, Title: g.Title, User: g.Author.Username, Closed: g.State == "closed",
		Labels: append([]string(nil), g.Labels...), Created: g.CreatedAt.UTC(), Updated: g.UpdatedAt.UTC()}
	if g.Description != nil {
		r.Body = *g.Description
	}
	for _, a := range g.Assignees {
		r.Assignees = append(r.Assignees, a.Username)
	}
	return r
}

// note is the comment; issue is the iid it is on (GitLab's notes
// listing is per issue, so the caller knows it even when the note does
// not say).
func (n glNote) note(issue int64) note {
	return note{ID: n.ID, Issue: issue, User: n.Author.Username, Body: n.Body, Created: n.CreatedAt.UTC(), Updated: n.UpdatedAt.UTC()}
}
