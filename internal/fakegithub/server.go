package fakegithub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/fakerest"
)

// Token is one access token the stand-in accepts.
type Token struct {
	Login string
	// Push: the user may write the repositories' issues (a read-only
	// token is refused every write with 403, as GitHub refuses it).
	Push bool
}

// Request is one request as the stand-in received it.
type Request = fakerest.Request

// Fault is an injected answer (see fakerest.Fault).
type Fault = fakerest.Fault

// core is fakerest.Core under a name that stays unexported in Server.
type core = fakerest.Core

// Server is the stand-in. Its zero value is not usable: use New.
type Server struct {
	// URL is the API root (the Prefix included), for api_url.
	URL    string
	Prefix string

	core
	tokens map[string]Token
	repos  map[string]*repo
	// lag: how many comment listings a new comment is missing from.
	lag      int
	nextID   int64
	pageSize int
	branch   func(repo, branch string) (string, bool)
}

type repo struct {
	name     string
	issues   []*issue
	comments []*comment
	pulls    []*pull
	// statuses: the combined CI status of a commit (SetStatus).
	statuses map[string]string
}

type issue struct {
	Number    int64
	Title     string
	Body      string
	User      string
	State     string
	Labels    []string
	Assignees []string
	Created   time.Time
	Updated   time.Time
	PR        bool
}

type comment struct {
	ID      int64
	Issue   int64
	User    string
	Body    string
	Created time.Time
	Updated time.Time
	// hidden: listings left before it shows (eventual consistency).
	hidden int
}

// Options configure New.
type Options struct {
	// Prefix mounts the API under a path, as GitHub Enterprise Server
	// does ("/api/v3").
	Prefix string
	// CommentLag is how many comment listings miss a new comment.
	CommentLag int
	// PageSize caps per_page (GitHub: 100), so tests paginate small.
	PageSize int
	// Branch, when set, says whether repo holds branch on GitHub and at
	// which commit (a test reads its bare remote): opening a pull
	// request of a branch that was never pushed is refused, as GitHub
	// refuses it. Unset: every branch exists.
	Branch func(repo, branch string) (sha string, ok bool)
}

// New starts a stand-in serving repos (each "owner/name") to tokens.
// Close it when done.
func New(o Options, tokens map[string]Token, repos ...string) *Server {
	s := &Server{Prefix: strings.TrimRight(o.Prefix, "/"), tokens: tokens, repos: map[string]*repo{}, lag: o.CommentLag,
		nextID: 1000, pageSize: o.PageSize, branch: o.Branch}
	if s.pageSize <= 0 || s.pageSize > 100 {
		s.pageSize = 100
	}
	for _, r := range repos {
		s.repos[r] = &repo{name: r}
	}
	s.URL = s.Start(s.serve) + s.Prefix
	return s
}

// OpenIssue opens an issue as login did on GitHub (a person).
func (s *Server) OpenIssue(repoName, login, title, body string, labels ...string) int64 {
	s.Lock()
	defer s.Unlock()
	r := s.repos[repoName]
	t := s.Now()
	is := &issue{Number: int64(len(r.issues) + 1), Title: title, Body: body, User: login, State: "open", Labels: slices.Clone(labels), Created: t, Updated: t}
	r.issues = append(r.issues, is)
	return is.Number
}

// OpenPullRequest opens a pull request (listed with the issues, as
// GitHub lists them, with a pull_request field).
func (s *Server) OpenPullRequest(repoName, login, title string) int64 {
	n := s.OpenIssue(repoName, login, title, "")
	s.Lock()
	s.repos[repoName].issues[n-1].PR = true
	s.Unlock()
	return n
}

// Comment posts a comment as login did on GitHub.
func (s *Server) Comment(repoName string, number int64, login, body string) int64 {
	s.Lock()
	defer s.Unlock()
	return s.addComment(s.repos[repoName], s.repos[repoName].issues[number-1], login, body).ID
}

// SetLabels sets an issue's labels as a person did on GitHub.
func (s *Server) SetLabels(repoName string, number int64, labels ...string) {
	s.Lock()
	defer s.Unlock()
	is := s.repos[repoName].issues[number-1]
	is.Labels = slices.Clone(labels)
	is.Updated = s.Now()
}

// Issue returns a copy of an issue: Labels, Assignees, State, Body.
func (s *Server) Issue(repoName string, number int64) (labels, assignees []string, state, body string) {
	s.Lock()
	defer s.Unlock()
	is := s.repos[repoName].issues[number-1]
	return slices.Clone(is.Labels), slices.Clone(is.Assignees), is.State, is.Body
}

// Issues counts a repository's issues (pull requests are numbered
// apart in the stand-in).
func (s *Server) Issues(repoName string) int {
	s.Lock()
	defer s.Unlock()
	return len(s.repos[repoName].issues)
}

// Comments returns the bodies of an issue's comments, as stored.
func (s *Server) Comments(repoName string, number int64) []string {
	s.Lock()
	defer s.Unlock()
	var out []string
	for _, c := range s.repos[repoName].comments {
		if c.Issue == number {
			out = append(out, c.Body)
		}
	}
	return out
}

func (s *Server) addComment(r *repo, is *issue, login, body string) *comment {
	s.nextID++
	t := s.Now()
	c := &comment{ID: s.nextID, Issue: is.Number, User: login, Body: body, Created: t, Updated: t, hidden: s.lag}
	r.comments = append(r.comments, c)
	is.Updated = t
	return c
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	s.Lock()
	defer s.Unlock()
	rec := Request{Method: req.Method, Path: strings.TrimPrefix(req.URL.Path, s.Prefix), Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body)}
	rw := &fakerest.Recorder{ResponseWriter: w, Status: 200}
	defer func() { s.Log().Record(rec, rw.Status) }()
	h := rw.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, 5000-s.Log().Charged()-1)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	if !strings.HasPrefix(req.URL.Path, s.Prefix+"/") {
		s.fail(rw, http.StatusNotFound, "Not Found")
		return
	}
	if s.Faulted(rw, req.Method, rec.Path) {
		return
	}
	tok, ok := s.auth(req)
	if !ok {
		s.fail(rw, http.StatusUnauthorized, "Bad credentials")
		return
	}
	s.route(rw, req, rec.Path, body, tok)
}

func (s *Server) auth(req *http.Request) (Token, bool) {
	a := req.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "token "} {
		if strings.HasPrefix(a, p) {
			t, ok := s.tokens[strings.TrimPrefix(a, p)]
			return t, ok
		}
	}
	return Token{}, false
}

func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

// page cuts items to the request's page and sets the Link header the
// way GitHub does (next, last, first, prev, absolute URLs).
func page[T any](s *Server, w http.ResponseWriter, req *http.Request, items []T) []T {
	q := req.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, s.pageSize)
	pg, _ := strconv.Atoi(q.Get("page"))
	if pg <= 0 {
		pg = 1
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(n int, rel string) string {
		q.Set("page", strconv.Itoa(n))
		u := url.URL{Scheme: "http", Host: req.Host, Path: req.URL.Path, RawQuery: q.Encode()}
		return "<" + u.String() + `>; rel="` + rel + `"`
	}
	var links []string
	if pg > 1 {
		links = append(links, link(pg-1, "prev"))
	}
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := min(len(items), (pg-1)*per)
	return items[lo:min(len(items), lo+per)]
}

func (s *Server) route(w http.ResponseWriter, req *http.Request, path string, body []byte, tok Token) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) == 1 && parts[0] == "user" {
		fakerest.Reply(w, req, 200, map[string]any{"login": tok.Login, "id": 1, "type": "User"})
		return
	}
	if len(parts) < 3 || parts[0] != "repos" {
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	r, ok := s.repos[parts[1]+"/"+parts[2]]
	if !ok {
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	rest := parts[3:]
	if req.Method != http.MethodGet && !tok.Push {
		s.fail(w, http.StatusForbidden, "Resource not accessible by personal access token")
		return
	}
	switch {
	case len(rest) == 0 && req.Method == http.MethodGet:
		fakerest.Reply(w, req, 200, s.repoJSON(req, r, tok))
	case len(rest) == 1 && rest[0] == "issues" && req.Method == http.MethodGet:
		s.listIssues(w, req, r)
	case len(rest) == 1 && rest[0] == "issues" && req.Method == http.MethodPost:
		s.createIssue(w, req, r, body, tok)
	case len(rest) == 2 && rest[0] == "issues" && rest[1] == "comments" && req.Method == http.MethodGet:
		s.listComments(w, req, r, 0)
	case len(rest) == 1 && rest[0] == "pulls" && req.Method == http.MethodGet:
		s.listPulls(w, req, r)
	case len(rest) == 1 && rest[0] == "pulls" && req.Method == http.MethodPost:
		s.createPull(w, req, r, body, tok)
	case len(rest) == 2 && rest[0] == "pulls":
		s.onPull(w, req, r, rest[1])
	case len(rest) == 3 && rest[0] == "pulls" && req.Method == http.MethodGet:
		s.pullReviews(w, req, r, rest[1], rest[2])
	case len(rest) == 3 && rest[0] == "commits" && rest[2] == "status" && req.Method == http.MethodGet:
		s.combinedStatus(w, req, r, rest[1])
	case len(rest) >= 2 && rest[0] == "issues":
		n, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || n < 1 || int(n) > len(r.issues) {
			s.fail(w, http.StatusNotFound, "Not Found")
			return
		}
		s.onIssue(w, req, r, r.issues[n-1], rest[2:], body, tok)
	default:
		s.fail(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) onIssue(w http.ResponseWriter, req *http.Request, r *repo, is *issue, rest []string, body []byte, tok Token) {
	var in struct {
		Title     *string   `json:"title"`
		Body      *string   `json:"body"`
		State     *string   `json:"state"`
		Labels    *[]string `json:"labels"`
		Assignees *[]string `json:"assignees"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			s.fail(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
	}
	switch {
	case len(rest) == 0 && req.Method == http.MethodGet:
		fakerest.Reply(w, req, 200, s.issueJSON(req, r, is))
	case len(rest) == 0 && req.Method == http.MethodPatch:
		if in.State != nil {
			if *in.State != "open" && *in.State != "closed" {
				s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
				return
			}
			is.State = *in.State
		}
		if in.Title != nil {
			is.Title = *in.Title
		}
		if in.Body != nil {
			is.Body = *in.Body
		}
		if in.Labels != nil {
			is.Labels = slices.Clone(*in.Labels)
		}
		if in.Assignees != nil {
			is.Assignees = slices.Clone(*in.Assignees)
		}
		is.Updated = s.Now()
		fakerest.Reply(w, req, 200, s.issueJSON(req, r, is))
	case len(rest) == 1 && rest[0] == "comments" && req.Method == http.MethodGet:
		s.listComments(w, req, r, is.Number)
	case len(rest) == 1 && rest[0] == "comments" && req.Method == http.MethodPost:
		if in.Body == nil || strings.TrimSpace(*in.Body) == "" {
			s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
			return
		}
		c := s.addComment(r, is, tok.Login, *in.Body)
		w.Header().Set("Location", s.abs(req, fmt.Sprintf("/repos/%s/issues/comments/%d", r.name, c.ID)))
		fakerest.Reply(w, req, http.StatusCreated, s.commentJSON(req, r, c))
	case len(rest) == 1 && rest[0] == "labels" && req.Method == http.MethodPost:
		if in.Labels == nil {
			s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
			return
		}
		for _, l := range *in.Labels {
			if !slices.Contains(is.Labels, l) {
				is.Labels = append(is.Labels, l)
			}
		}
		is.Updated = s.Now()
		fakerest.Reply(w, req, 200, s.labelsJSON(req, r, is.Labels))
	case len(rest) == 2 && rest[0] == "labels" && req.Method == http.MethodDelete:
		name, _ := url.PathUnescape(rest[1])
		i := slices.Index(is.Labels, name)
		if i < 0 {
			s.fail(w, http.StatusNotFound, "Label does not exist")
			return
		}
		is.Labels = slices.Delete(is.Labels, i, i+1)
		is.Updated = s.Now()
		fakerest.Reply(w, req, 200, s.labelsJSON(req, r, is.Labels))
	default:
		s.fail(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) createIssue(w http.ResponseWriter, req *http.Request, r *repo, body []byte, tok Token) {
	var in struct {
		Title     string   `json:"title"`
		Body      string   `json:"body"`
		Labels    []string `json:"labels"`
		Assignees []string `json:"assignees"`
	}
	if err := json.Unmarshal(body, &in); err != nil || strings.TrimSpace(in.Title) == "" {
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	t := s.Now()
	is := &issue{Number: int64(len(r.issues) + 1), Title: in.Title, Body: in.Body, User: tok.Login, State: "open",
		Labels: in.Labels, Assignees: in.Assignees, Created: t, Updated: t}
	r.issues = append(r.issues, is)
	w.Header().Set("Location", s.abs(req, fmt.Sprintf("/repos/%s/issues/%d", r.name, is.Number)))
	fakerest.Reply(w, req, http.StatusCreated, s.issueJSON(req, r, is))
}

// since reads the since= filter of a listing (zero when absent). A
// malformed one is answered with a 422, as GitHub does, and ok is false.
func (s *Server) since(w http.ResponseWriter, q url.Values) (since time.Time, ok bool) {
	v := q.Get("since")
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
		return time.Time{}, false
	}
	return t, true
}

// listIssues answers GET /repos/o/r/issues: state (open default), since
// (updated at or after), creator, sort (created default, updated),
// direction (desc default), pull requests included as GitHub does.
func (s *Server) listIssues(w http.ResponseWriter, req *http.Request, r *repo) {
	q := req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	since, ok := s.since(w, q)
	if !ok {
		return
	}
	var out []*issue
	for _, is := range r.issues {
		if (state != "all" && is.State != state) || is.Updated.Before(since) || (q.Get("creator") != "" && is.User != q.Get("creator")) {
			continue
		}
		out = append(out, is)
	}
	key := func(is *issue) time.Time { return is.Created }
	if q.Get("sort") == "updated" {
		key = func(is *issue) time.Time { return is.Updated }
	}
	asc := q.Get("direction") == "asc"
	sort.SliceStable(out, func(a, b int) bool {
		if asc {
			return key(out[a]).Before(key(out[b]))
		}
		return key(out[a]).After(key(out[b]))
	})
	js := []map[string]any{}
	for _, is := range page(s, w, req, out) {
		js = append(js, s.issueJSON(req, r, is))
	}
	fakerest.Reply(w, req, 200, js)
}

// listComments answers the repository's comment listing (issue 0) or
// one issue's. A new comment is missing from its first listings (lag).
func (s *Server) listComments(w http.ResponseWriter, req *http.Request, r *repo, issue int64) {
	q := req.URL.Query()
	since, ok := s.since(w, q)
	if !ok {
		return
	}
	var out []*comment
	for _, c := range r.comments {
		if (issue != 0 && c.Issue != issue) || c.Updated.Before(since) {
			continue
		}
		if issue == 0 && c.hidden > 0 {
			c.hidden--
			continue
		}
		out = append(out, c)
	}
	if q.Get("direction") == "desc" {
		slices.Reverse(out)
	}
	js := []map[string]any{}
	for _, c := range page(s, w, req, out) {
		js = append(js, s.commentJSON(req, r, c))
	}
	fakerest.Reply(w, req, 200, js)
}
