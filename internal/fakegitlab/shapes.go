package fakegitlab

import (
	"strconv"
	"time"
)

// The answers' shapes are gitlab.com's (REST API v4, the fields of the
// issue, note, user and project entities), with the fields daokit does
// not read kept, so that a decoder that assumed GitHub's shapes fails.

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (s *Server) userJSON(name string) map[string]any {
	id := s.users[name]
	return map[string]any{"id": id, "username": name, "name": name, "state": "active", "locked": false,
		"avatar_url": "https://secure.gravatar.com/avatar/" + strconv.FormatInt(id, 10), "web_url": "https://gitlab.example.com/" + name}
}

func (s *Server) issueJSON(p *project, is *issue) map[string]any {
	var desc any
	if is.Body != "" {
		desc = is.Body // GitLab answers null for an issue opened without one
	}
	assignees := []any{}
	for _, a := range is.Assignees {
		assignees = append(assignees, s.userJSON(a))
	}
	var assignee any
	if len(assignees) > 0 {
		assignee = assignees[0]
	}
	var closedAt any
	if is.State == "closed" {
		closedAt = stamp(is.Updated)
	}
	return map[string]any{
		"id": is.ID, "iid": is.IID, "project_id": p.id, "title": is.Title, "description": desc, "state": is.State,
		"created_at": stamp(is.Created), "updated_at": stamp(is.Updated), "closed_at": closedAt, "closed_by": nil,
		"labels": append([]string{}, is.Labels...), "milestone": nil, "assignees": assignees, "assignee": assignee,
		"author": s.userJSON(is.Author), "type": "ISSUE", "issue_type": "issue", "user_notes_count": 0,
		"merge_requests_count": 0, "upvotes": 0, "downvotes": 0, "due_date": nil, "confidential": false,
		"discussion_locked": nil, "web_url": "https://gitlab.example.com/" + p.path + "/-/issues/" + strconv.FormatInt(is.IID, 10),
		"references": map[string]string{"short": "#" + strconv.FormatInt(is.IID, 10), "relative": "#" + strconv.FormatInt(is.IID, 10),
			"full": p.path + "#" + strconv.FormatInt(is.IID, 10)},
		"time_stats": map[string]any{"time_estimate": 0, "total_time_spent": 0}, "task_completion_status": map[string]int{"count": 0, "completed_count": 0},
	}
}

func (s *Server) noteJSON(p *project, n *note) map[string]any {
	return map[string]any{
		"id": n.ID, "type": nil, "body": n.Body, "attachment": nil, "author": s.userJSON(n.Author),
		"created_at": stamp(n.Created), "updated_at": stamp(n.Created), "system": n.System,
		"noteable_id": p.issues[n.IID-1].ID, "noteable_type": "Issue", "noteable_iid": n.IID, "project_id": p.id,
		"resolvable": false, "confidential": false, "internal": false, "commands_changes": map[string]any{},
	}
}
