package fakegithub

import (
	"fmt"
	"net/http"
	"time"
)

// The JSON the stand-in answers with has the fields of GitHub's (the
// subset a client reads, in the same shape: see the shape test against
// @octokit/fixtures), with URLs under the stand-in's own address.

func (s *Server) abs(req *http.Request, path string) string {
	return "http://" + req.Host + s.Prefix + path
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (s *Server) userJSON(login string) map[string]any {
	return map[string]any{"login": login, "id": len(login), "type": "User", "site_admin": false}
}

func (s *Server) labelsJSON(req *http.Request, r *repo, names []string) []map[string]any {
	out := []map[string]any{}
	for i, n := range names {
		out = append(out, map[string]any{"id": 1000 + i, "node_id": "MDA6RW50aXR5MQ==", "url": s.abs(req, "/repos/"+r.name+"/labels/"+n),
			"name": n, "color": "ededed", "default": false, "description": nil})
	}
	return out
}

func (s *Server) issueJSON(req *http.Request, r *repo, is *issue) map[string]any {
	base := fmt.Sprintf("/repos/%s/issues/%d", r.name, is.Number)
	assignees := []map[string]any{}
	for _, a := range is.Assignees {
		assignees = append(assignees, s.userJSON(a))
	}
	var assignee any
	if len(assignees) > 0 {
		assignee = assignees[0]
	}
	ncomments := 0
	for _, c := range r.comments {
		if c.Issue == is.Number {
			ncomments++
		}
	}
	m := map[string]any{
		"url": s.abs(req, base), "repository_url": s.abs(req, "/repos/"+r.name), "labels_url": s.abs(req, base+"/labels{/name}"),
		"comments_url": s.abs(req, base+"/comments"), "events_url": s.abs(req, base+"/events"),
		"html_url": fmt.Sprintf("https://github.com/%s/issues/%d", r.name, is.Number),
		"id":       5000 + is.Number, "node_id": "MDA6RW50aXR5MQ==", "number": is.Number, "title": is.Title,
		"user": s.userJSON(is.User), "labels": s.labelsJSON(req, r, is.Labels), "state": is.State, "locked": false,
		"assignee": assignee, "assignees": assignees, "milestone": nil, "comments": ncomments,
		"created_at": ts(is.Created), "updated_at": ts(is.Updated), "closed_at": nil, "author_association": "OWNER", "body": is.Body,
	}
	if is.Body == "" {
		m["body"] = nil
	}
	if is.State == "closed" {
		m["closed_at"] = ts(is.Updated)
	}
	if is.PR {
		m["pull_request"] = map[string]any{"url": s.abs(req, fmt.Sprintf("/repos/%s/pulls/%d", r.name, is.Number))}
	}
	return m
}

func (s *Server) commentJSON(req *http.Request, r *repo, c *comment) map[string]any {
	return map[string]any{
		"url":       s.abs(req, fmt.Sprintf("/repos/%s/issues/comments/%d", r.name, c.ID)),
		"html_url":  fmt.Sprintf("https://github.com/%s/issues/%d#issuecomment-%d", r.name, c.Issue, c.ID),
		"issue_url": s.abs(req, fmt.Sprintf("/repos/%s/issues/%d", r.name, c.Issue)),
		"id":        c.ID, "node_id": "MDA6RW50aXR5MQ==", "user": s.userJSON(c.User),
		"created_at": ts(c.Created), "updated_at": ts(c.Updated), "author_association": "OWNER", "body": c.Body,
	}
}

func (s *Server) repoJSON(req *http.Request, r *repo, tok Token) map[string]any {
	return map[string]any{
		"id": 1000, "node_id": "MDA6RW50aXR5MQ==", "name": r.name[len(ownerOf(r.name))+1:], "full_name": r.name, "private": true,
		"owner": s.userJSON(ownerOf(r.name)), "url": s.abs(req, "/repos/"+r.name), "has_issues": true,
		"permissions": map[string]bool{"admin": false, "maintain": false, "push": tok.Push, "triage": tok.Push, "pull": true},
	}
}

func ownerOf(name string) string {
	for i := range name {
		if name[i] == '/' {
			return name[:i]
		}
	}
	return name
}
