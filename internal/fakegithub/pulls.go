package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/fakerest"
)

// pull is a pull request; its issue (same number, as on GitHub) holds
// the title, body, author and state.
type pull struct {
	Number     int64
	Head, Base string
	SHA        string
	Merged     bool
	// comments are the comments on lines of the diff, reviews the
	// submitted reviews (pulls/N/comments, pulls/N/reviews).
	comments []*lineComment
	reviews  []*review
}

// lineComment is a review comment on line of path.
type lineComment struct {
	ID         int64
	User, Body string
	Path       string
	Line       int
	Created    time.Time
}

// review is a submitted review: APPROVED, CHANGES_REQUESTED, COMMENTED
// (or PENDING, DISMISSED).
type review struct {
	ID                int64
	User, Body, State string
	Submitted         time.Time
}

// Pull is a pull request as the stand-in holds it.
type Pull struct {
	Number           int64
	Title, Body      string
	Head, Base, SHA  string
	State, User, URL string
}

// Pulls returns the repository's pull requests, in the order opened.
func (s *Server) Pulls(repoName string) []Pull {
	s.Lock()
	defer s.Unlock()
	r := s.repos[repoName]
	var out []Pull
	for _, p := range r.pulls {
		is := r.issues[p.Number-1]
		out = append(out, Pull{Number: p.Number, Title: is.Title, Body: is.Body, Head: p.Head, Base: p.Base, SHA: p.SHA,
			State: is.State, User: is.User, URL: pullHTML(r, p)})
	}
	return out
}

// SetStatus sets the combined CI status GitHub reports for commit sha
// ("success", "failure", "pending").
func (s *Server) SetStatus(repoName, sha, state string) {
	s.Lock()
	defer s.Unlock()
	r := s.repos[repoName]
	if r.statuses == nil {
		r.statuses = map[string]string{}
	}
	r.statuses[sha] = state
}

func pullHTML(r *repo, p *pull) string {
	return fmt.Sprintf("https://github.com/%s/pull/%d", r.name, p.Number)
}

// headBranch reads a head as GitHub takes it: "branch" or
// "owner:branch" (a fork's owner is not modelled: the repository's own).
func headBranch(r *repo, head string) (string, bool) {
	owner, branch, ok := strings.Cut(head, ":")
	if !ok {
		return head, true
	}
	return branch, owner == ownerOf(r.name)
}

// createPull answers POST /repos/o/r/pulls as GitHub does: 422 when a
// field is missing, when the head branch does not exist on GitHub
// (Options.Branch) or when an open pull request of the same head and
// base exists.
func (s *Server) createPull(w http.ResponseWriter, req *http.Request, r *repo, body []byte, tok Token) {
	var in struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Head  string `json:"head"`
		Base  string `json:"base"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		s.fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	branch, own := headBranch(r, in.Head)
	if strings.TrimSpace(in.Title) == "" || branch == "" || in.Base == "" || !own {
		s.invalid(w, "PullRequest", "missing_field", "")
		return
	}
	sha := "0000000000000000000000000000000000000000"
	if s.branch != nil {
		var ok bool
		if sha, ok = s.branch(r.name, branch); !ok {
			s.invalid(w, "PullRequest", "invalid", "head")
			return
		}
		if _, ok := s.branch(r.name, in.Base); !ok {
			s.invalid(w, "PullRequest", "invalid", "base")
			return
		}
	}
	for _, p := range r.pulls {
		if p.Head == branch && p.Base == in.Base && r.issues[p.Number-1].State == "open" {
			s.invalid(w, "PullRequest", "custom", "", "A pull request already exists for "+ownerOf(r.name)+":"+branch+".")
			return
		}
	}
	t := s.Now()
	is := &issue{Number: int64(len(r.issues) + 1), Title: in.Title, Body: in.Body, User: tok.Login, State: "open",
		Created: t, Updated: t, PR: true}
	r.issues = append(r.issues, is)
	p := &pull{Number: is.Number, Head: branch, Base: in.Base, SHA: sha}
	r.pulls = append(r.pulls, p)
	w.Header().Set("Location", s.abs(req, fmt.Sprintf("/repos/%s/pulls/%d", r.name, p.Number)))
	fakerest.Reply(w, req, http.StatusCreated, s.pullJSON(req, r, p))
}

// invalid answers 422 Validation Failed with GitHub's errors array.
func (s *Server) invalid(w http.ResponseWriter, resource, code, field string, message ...string) {
	e := map[string]any{"resource": resource, "code": code}
	if field != "" {
		e["field"] = field
	}
	if len(message) > 0 {
		e["message"] = message[0]
	}
	w.WriteHeader(http.StatusUnprocessableEntity)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": "Validation Failed", "errors": []any{e},
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request", "status": "422"})
}

// listPulls answers GET /repos/o/r/pulls: state (open default, closed,
// all), head ("owner:branch"; another owner matches nothing), base;
// newest first, as GitHub sorts by default.
func (s *Server) listPulls(w http.ResponseWriter, req *http.Request, r *repo) {
	q := req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var out []*pull
	for i := len(r.pulls) - 1; i >= 0; i-- {
		p := r.pulls[i]
		st := r.issues[p.Number-1].State
		if state != "all" && st != state {
			continue
		}
		if h := q.Get("head"); h != "" {
			owner, branch, ok := strings.Cut(h, ":")
			if !ok || owner != ownerOf(r.name) || branch != p.Head {
				continue
			}
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		out = append(out, p)
	}
	js := []map[string]any{}
	for _, p := range page(s, w, req, out) {
		js = append(js, s.pullJSON(req, r, p))
	}
	fakerest.Reply(w, req, 200, js)
}

// onPull answers GET /repos/o/r/pulls/N.
func (s *Server) onPull(w http.ResponseWriter, req *http.Request, r *repo, number string) {
	for _, p := range r.pulls {
		if fmt.Sprint(p.Number) == number && req.Method == http.MethodGet {
			fakerest.Reply(w, req, 200, s.pullJSON(req, r, p))
			return
		}
	}
	s.fail(w, http.StatusNotFound, "Not Found")
}

// combinedStatus answers GET /repos/o/r/commits/REF/status.
func (s *Server) combinedStatus(w http.ResponseWriter, req *http.Request, r *repo, ref string) {
	state, n := "pending", 0
	if st, ok := r.statuses[ref]; ok {
		state, n = st, 1
	}
	statuses := []map[string]any{}
	if n > 0 {
		statuses = append(statuses, map[string]any{"state": state, "context": "ci", "description": "CI " + state})
	}
	fakerest.Reply(w, req, 200, map[string]any{"state": state, "sha": ref, "total_count": n, "statuses": statuses,
		"repository": map[string]any{"full_name": r.name}})
}

func (s *Server) pullJSON(req *http.Request, r *repo, p *pull) map[string]any {
	is := r.issues[p.Number-1]
	base := fmt.Sprintf("/repos/%s/pulls/%d", r.name, p.Number)
	repoJSON := map[string]any{"full_name": r.name, "name": r.name[len(ownerOf(r.name))+1:], "owner": s.userJSON(ownerOf(r.name))}
	m := map[string]any{
		"url": s.abs(req, base), "id": 9000 + p.Number, "node_id": "MDExOlB1bGxSZXF1ZXN0MQ==", "html_url": pullHTML(r, p),
		"diff_url": pullHTML(r, p) + ".diff", "issue_url": s.abs(req, fmt.Sprintf("/repos/%s/issues/%d", r.name, p.Number)),
		"number": p.Number, "state": is.State, "locked": false, "title": is.Title, "user": s.userJSON(is.User), "body": is.Body,
		"created_at": ts(is.Created), "updated_at": ts(is.Updated), "closed_at": nil, "merged_at": nil, "draft": false,
		"merged": p.Merged, "author_association": "OWNER",
		"head": map[string]any{"label": ownerOf(r.name) + ":" + p.Head, "ref": p.Head, "sha": p.SHA, "user": s.userJSON(ownerOf(r.name)), "repo": repoJSON},
		"base": map[string]any{"label": ownerOf(r.name) + ":" + p.Base, "ref": p.Base, "user": s.userJSON(ownerOf(r.name)), "repo": repoJSON},
	}
	if is.Body == "" {
		m["body"] = nil
	}
	return m
}

// LineComment writes login's review comment on line of path in pull
// request number, as a reviewer does on GitHub; it returns its id.
func (s *Server) LineComment(repoName string, number int64, login, path string, line int, body string) int64 {
	s.Lock()
	defer s.Unlock()
	p := s.pull(repoName, number)
	s.nextID++
	p.comments = append(p.comments, &lineComment{ID: s.nextID, User: login, Body: body, Path: path, Line: line, Created: s.Now()})
	return s.nextID
}

// Review submits login's review of pull request number (state
// APPROVED, CHANGES_REQUESTED, COMMENTED, PENDING or DISMISSED).
func (s *Server) Review(repoName string, number int64, login, state, body string) int64 {
	s.Lock()
	defer s.Unlock()
	p := s.pull(repoName, number)
	s.nextID++
	p.reviews = append(p.reviews, &review{ID: s.nextID, User: login, Body: body, State: state, Submitted: s.Now()})
	return s.nextID
}

func (s *Server) pull(repoName string, number int64) *pull {
	for _, p := range s.repos[repoName].pulls {
		if p.Number == number {
			return p
		}
	}
	panic("fakegithub: no pull request " + strconv.FormatInt(number, 10))
}

// pullReviews answers GET /repos/o/r/pulls/N/comments and
// /repos/o/r/pulls/N/reviews, oldest first as GitHub lists them.
func (s *Server) pullReviews(w http.ResponseWriter, req *http.Request, r *repo, number, what string) {
	var p *pull
	for _, q := range r.pulls {
		if fmt.Sprint(q.Number) == number {
			p = q
		}
	}
	if p == nil || what != "comments" && what != "reviews" {
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	html := pullHTML(r, p)
	js := []map[string]any{}
	if what == "comments" {
		for _, c := range page(s, w, req, p.comments) {
			js = append(js, map[string]any{"id": c.ID, "node_id": "PRRC_" + strconv.FormatInt(c.ID, 10), "pull_request_review_id": nil,
				"diff_hunk": "@@ -1 +1 @@", "path": c.Path, "commit_id": p.SHA, "original_commit_id": p.SHA,
				"user": s.userJSON(c.User), "body": c.Body, "created_at": ts(c.Created), "updated_at": ts(c.Created),
				"html_url": html + "#discussion_r" + strconv.FormatInt(c.ID, 10), "author_association": "MEMBER",
				"line": c.Line, "original_line": c.Line, "side": "RIGHT", "start_line": nil, "subject_type": "line"})
		}
	} else {
		for _, rv := range page(s, w, req, p.reviews) {
			m := map[string]any{"id": rv.ID, "node_id": "PRR_" + strconv.FormatInt(rv.ID, 10), "user": s.userJSON(rv.User),
				"body": rv.Body, "state": rv.State, "commit_id": p.SHA, "author_association": "MEMBER",
				"html_url": html + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10)}
			if rv.State != "PENDING" {
				m["submitted_at"] = ts(rv.Submitted)
			}
			js = append(js, m)
		}
	}
	fakerest.Reply(w, req, 200, js)
}
