package fakegitlab

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/daokit/daokit/internal/fakerest"
)

// mergeRequest is a merge request; its iid counts apart from the
// project's issues, as on GitLab.
type mergeRequest struct {
	ID, IID        int64
	Title, Body    string
	Source, Target string
	SHA, Author    string
	State          string
	discussions    []*discussion
}

// discussion is a thread on a merge request: one general note, or a
// note on a line of the diff (File, Line) with its replies.
type discussion struct {
	ID    string
	File  string
	Line  int
	notes []*note
}

// pipeline is a CI pipeline run for a commit.
type pipeline struct {
	ID     int64
	SHA    string
	Ref    string
	Status string
}

// MergeRequest is a merge request as the stand-in holds it.
type MergeRequest struct {
	IID                   int64
	Title, Body           string
	Source, Target, SHA   string
	State, Author, WebURL string
}

// MergeRequests returns the project's merge requests, in the order opened.
func (s *Server) MergeRequests(path string) []MergeRequest {
	s.Lock()
	defer s.Unlock()
	p := s.projects[path]
	var out []MergeRequest
	for _, m := range p.mrs {
		out = append(out, MergeRequest{IID: m.IID, Title: m.Title, Body: m.Body, Source: m.Source, Target: m.Target, SHA: m.SHA,
			State: m.State, Author: m.Author, WebURL: mrURL(p, m)})
	}
	return out
}

// SetPipeline records a pipeline of status ("success", "failed",
// "running"…) for commit sha, newer than every other one of the project.
func (s *Server) SetPipeline(path, sha, status string) {
	s.Lock()
	defer s.Unlock()
	p := s.projects[path]
	s.nextID++
	ref := ""
	for _, m := range p.mrs {
		if m.SHA == sha {
			ref = m.Source
		}
	}
	p.pipelines = append(p.pipelines, &pipeline{ID: s.nextID, SHA: sha, Ref: ref, Status: status})
}

// ReviewNote writes a note as username did on merge request iid: on
// line of file's new version when file is set (a DiffNote in a
// discussion of its own), else a general comment. reply, when not 0,
// is the note whose discussion it answers. It returns the note's id.
func (s *Server) ReviewNote(path string, iid int64, username, body, file string, line int, reply int64) int64 {
	s.Lock()
	defer s.Unlock()
	m := s.projects[path].mrs[iid-1]
	s.nextID++
	n := &note{ID: s.nextID, IID: iid, Author: username, Body: body, Created: s.Now()}
	for _, d := range m.discussions {
		for _, o := range d.notes {
			if o.ID == reply && reply != 0 {
				d.notes = append(d.notes, n)
				return n.ID
			}
		}
	}
	m.discussions = append(m.discussions, &discussion{ID: fmt.Sprintf("%040x", n.ID), File: file, Line: line, notes: []*note{n}})
	return n.ID
}

func mrURL(p *project, m *mergeRequest) string {
	return "https://gitlab.example.com/" + p.path + "/-/merge_requests/" + strconv.FormatInt(m.IID, 10)
}

// onMergeRequests answers the merge request routes of a project:
// POST and GET merge_requests, GET merge_requests/IID, and its
// discussions.
func (s *Server) onMergeRequests(w http.ResponseWriter, req *http.Request, p *project, rest []string, body []byte, tok Token) {
	switch {
	case len(rest) == 0 && req.Method == http.MethodPost:
		s.createMR(w, req, p, body, tok)
		return
	case len(rest) == 0 && req.Method == http.MethodGet:
		s.listMRs(w, req, p)
		return
	}
	n, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil || n < 1 || int(n) > len(p.mrs) || req.Method != http.MethodGet {
		fail(w, http.StatusNotFound, "404 Not found")
		return
	}
	m := p.mrs[n-1]
	switch {
	case len(rest) == 1:
		fakerest.Reply(w, req, 200, s.mrJSON(p, m))
	case len(rest) == 2 && rest[1] == "discussions":
		var js []any
		for _, d := range page(s, w, req, m.discussions) {
			js = append(js, s.discussionJSON(p, m, d))
		}
		fakerest.Reply(w, req, 200, nonNil(js))
	default:
		fail(w, http.StatusNotFound, "404 Not Found")
	}
}

// createMR answers POST /projects/:id/merge_requests as GitLab does:
// 400 when a field is missing, 404 when a branch does not exist
// (Options.Branch), 409 when an open merge request of the same source
// branch and target exists.
func (s *Server) createMR(w http.ResponseWriter, req *http.Request, p *project, body []byte, tok Token) {
	var in struct {
		Title        string `json:"title"`
		Description  string `json:"description"`
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
	}
	if json.Unmarshal(body, &in) != nil || in.Title == "" || in.SourceBranch == "" || in.TargetBranch == "" {
		fail(w, http.StatusBadRequest, "400 Bad request - title, source_branch, target_branch are missing")
		return
	}
	sha := "0000000000000000000000000000000000000000"
	if s.o.Branch != nil {
		var ok bool
		if sha, ok = s.o.Branch(p.path, in.SourceBranch); !ok {
			fail(w, http.StatusNotFound, "404 Source branch Not Found")
			return
		}
		if _, ok := s.o.Branch(p.path, in.TargetBranch); !ok {
			fail(w, http.StatusNotFound, "404 Target branch Not Found")
			return
		}
	}
	for _, m := range p.mrs {
		if m.Source == in.SourceBranch && m.Target == in.TargetBranch && m.State == "opened" {
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(map[string]any{"message": []string{
				"Another open merge request already exists for this source branch: !" + strconv.FormatInt(m.IID, 10)}})
			return
		}
	}
	s.nextID++
	m := &mergeRequest{ID: s.nextID, IID: int64(len(p.mrs) + 1), Title: in.Title, Body: in.Description, Source: in.SourceBranch,
		Target: in.TargetBranch, SHA: sha, Author: tok.Username, State: "opened"}
	p.mrs = append(p.mrs, m)
	fakerest.Reply(w, req, http.StatusCreated, s.mrJSON(p, m))
}

// listMRs answers GET /projects/:id/merge_requests: state (opened,
// closed, merged, all; GitLab's default is all), source_branch,
// target_branch; newest first.
func (s *Server) listMRs(w http.ResponseWriter, req *http.Request, p *project) {
	q := req.URL.Query()
	var out []*mergeRequest
	for _, m := range slices.Backward(p.mrs) {
		if st := q.Get("state"); st != "" && st != "all" && m.State != st {
			continue
		}
		if b := q.Get("source_branch"); b != "" && b != m.Source {
			continue
		}
		if b := q.Get("target_branch"); b != "" && b != m.Target {
			continue
		}
		out = append(out, m)
	}
	var js []any
	for _, m := range page(s, w, req, out) {
		js = append(js, s.mrJSON(p, m))
	}
	fakerest.Reply(w, req, 200, nonNil(js))
}

// listPipelines answers GET /projects/:id/pipelines: sha, ref; newest
// first (GitLab orders by id, descending).
func (s *Server) listPipelines(w http.ResponseWriter, req *http.Request, p *project) {
	q := req.URL.Query()
	var out []*pipeline
	for _, pl := range slices.Backward(p.pipelines) {
		if sha := q.Get("sha"); sha != "" && sha != pl.SHA {
			continue
		}
		if ref := q.Get("ref"); ref != "" && ref != pl.Ref {
			continue
		}
		out = append(out, pl)
	}
	var js []any
	for _, pl := range page(s, w, req, out) {
		js = append(js, map[string]any{"id": pl.ID, "iid": pl.ID - 1000, "project_id": p.id, "sha": pl.SHA, "ref": pl.Ref,
			"status": pl.Status, "source": "merge_request_event",
			"web_url": "https://gitlab.example.com/" + p.path + "/-/pipelines/" + strconv.FormatInt(pl.ID, 10)})
	}
	fakerest.Reply(w, req, 200, nonNil(js))
}

func (s *Server) mrJSON(p *project, m *mergeRequest) map[string]any {
	var desc any
	if m.Body != "" {
		desc = m.Body
	}
	ref := "!" + strconv.FormatInt(m.IID, 10)
	return map[string]any{
		"id": m.ID, "iid": m.IID, "project_id": p.id, "title": m.Title, "description": desc, "state": m.State,
		"source_branch": m.Source, "target_branch": m.Target, "source_project_id": p.id, "target_project_id": p.id,
		"sha": m.SHA, "merge_commit_sha": nil, "squash_commit_sha": nil, "author": s.userJSON(m.Author), "assignees": []any{},
		"reviewers": []any{}, "labels": []string{}, "draft": false, "work_in_progress": false, "merge_status": "can_be_merged",
		"detailed_merge_status": "mergeable", "merged_by": nil, "merged_at": nil, "closed_by": nil, "closed_at": nil,
		"user_notes_count": len(m.discussions), "web_url": mrURL(p, m),
		"references": map[string]string{"short": ref, "relative": ref, "full": p.path + ref},
	}
}

func (s *Server) discussionJSON(p *project, m *mergeRequest, d *discussion) map[string]any {
	notes := []any{}
	for _, n := range d.notes {
		js := map[string]any{
			"id": n.ID, "type": nil, "body": n.Body, "attachment": nil, "author": s.userJSON(n.Author),
			"created_at": stamp(n.Created), "updated_at": stamp(n.Created), "system": n.System,
			"noteable_id": m.ID, "noteable_type": "MergeRequest", "noteable_iid": m.IID, "project_id": p.id,
			"resolvable": d.File != "", "resolved": false, "resolved_by": nil, "confidential": false, "internal": false,
		}
		if d.File != "" {
			js["type"] = "DiffNote"
			js["position"] = map[string]any{"base_sha": m.SHA, "start_sha": m.SHA, "head_sha": m.SHA,
				"old_path": d.File, "new_path": d.File, "position_type": "text", "old_line": nil, "new_line": d.Line}
		}
		notes = append(notes, js)
	}
	return map[string]any{"id": d.ID, "individual_note": d.File == "" && len(d.notes) == 1, "notes": notes}
}
