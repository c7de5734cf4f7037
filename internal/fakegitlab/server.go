package fakegitlab

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/fakerest"
)

// Token is one access token the stand-in accepts.
type Token struct {
	Username string
	// Level is the user's access level in every project (10 Guest, 20
	// Reporter, 30 Developer, 40 Maintainer); below Reporter, edits of
	// an issue are refused with 403, as GitLab refuses them.
	Level int
}

// Request is one request as the stand-in received it.
type Request = fakerest.Request

// Fault is an injected answer (see fakerest.Fault).
type Fault = fakerest.Fault

// Options configure New.
type Options struct {
	// Prefix mounts the API (default "/api/v4", as GitLab does).
	Prefix string
	// NoteLag is how many note listings miss a new note.
	NoteLag int
	// PageSize caps per_page (GitLab: 100), so tests paginate small.
	PageSize int
	// NoLink leaves the Link header out, as GitLab does on listings
	// too large to count: X-Next-Page alone says there is more.
	NoLink bool
	// Branch, when set, says whether the project holds branch on GitLab
	// and at which commit: a merge request of a branch never pushed is
	// refused, as GitLab refuses it.
	Branch func(path, branch string) (sha string, ok bool)
}

// core is fakerest.Core under a name that stays unexported in Server.
type core = fakerest.Core

// Server is the stand-in. Its zero value is not usable: use New.
type Server struct {
	// URL is the API root, for api_url.
	URL    string
	Prefix string
	o      Options

	core
	tokens   map[string]Token
	users    map[string]int64
	projects map[string]*project
	nextID   int64
}

type project struct {
	id     int64
	path   string
	issues []*issue
	notes  []*note
	// mrs are the merge requests (numbered by iid apart from issues, as
	// on GitLab); pipelines the CI pipelines, by commit.
	mrs       []*mergeRequest
	pipelines []*pipeline
}

type issue struct {
	ID        int64
	IID       int64
	Title     string
	Body      string
	Author    string
	State     string
	Labels    []string
	Assignees []string
	Created   time.Time
	Updated   time.Time
}

type note struct {
	ID      int64
	IID     int64
	Author  string
	Body    string
	System  bool
	Created time.Time
	// hidden: listings left before it shows (eventual consistency).
	hidden int
}

// New starts a stand-in serving projects (each "group/sub/name") to
// tokens; users are the other people GitLab knows (assignable by
// username). Close it when done.
func New(o Options, tokens map[string]Token, users []string, projects ...string) *Server {
	if o.Prefix == "" {
		o.Prefix = "/api/v4"
	}
	if o.PageSize <= 0 || o.PageSize > 100 {
		o.PageSize = 100
	}
	s := &Server{Prefix: strings.TrimRight(o.Prefix, "/"), o: o, tokens: tokens, users: map[string]int64{}, projects: map[string]*project{},
		nextID: 1000}
	for _, t := range tokens {
		s.user(t.Username)
	}
	for _, u := range users {
		s.user(u)
	}
	for i, p := range projects {
		s.projects[p] = &project{id: int64(100 + i), path: p}
	}
	s.URL = s.Start(s.serve) + s.Prefix
	return s
}

func (s *Server) user(name string) int64 {
	if id, ok := s.users[name]; ok {
		return id
	}
	s.users[name] = int64(len(s.users) + 1)
	return s.users[name]
}

// OpenIssue opens an issue as username did on GitLab (a person).
func (s *Server) OpenIssue(path, username, title, body string, labels ...string) int64 {
	s.Lock()
	defer s.Unlock()
	return s.open(s.projects[path], username, title, body, labels, nil).IID
}

func (s *Server) open(p *project, username, title, body string, labels, assignees []string) *issue {
	s.nextID++
	t := s.Now()
	is := &issue{ID: s.nextID, IID: int64(len(p.issues) + 1), Title: title, Body: body, Author: username, State: "opened",
		Labels: uniq(labels), Assignees: assignees, Created: t, Updated: t}
	p.issues = append(p.issues, is)
	return is
}

// Comment posts a note as username did on GitLab.
func (s *Server) Comment(path string, iid int64, username, body string) int64 {
	s.Lock()
	defer s.Unlock()
	p := s.projects[path]
	return s.addNote(p, p.issues[iid-1], username, body, false).ID
}

// SetLabels sets an issue's labels as a person did on GitLab.
func (s *Server) SetLabels(path string, iid int64, labels ...string) {
	s.Lock()
	defer s.Unlock()
	p := s.projects[path]
	is := p.issues[iid-1]
	s.relabel(p, is, "root", uniq(labels))
}

// Issue returns a copy of an issue: Labels, Assignees, State ("opened",
// "closed"), Description.
func (s *Server) Issue(path string, iid int64) (labels, assignees []string, state, body string) {
	s.Lock()
	defer s.Unlock()
	is := s.projects[path].issues[iid-1]
	return slices.Clone(is.Labels), slices.Clone(is.Assignees), is.State, is.Body
}

// Issues counts a project's issues.
func (s *Server) Issues(path string) int {
	s.Lock()
	defer s.Unlock()
	return len(s.projects[path].issues)
}

// Notes returns the bodies of an issue's notes people and tokens wrote
// (not the system notes), as stored.
func (s *Server) Notes(path string, iid int64) []string {
	s.Lock()
	defer s.Unlock()
	var out []string
	for _, n := range s.projects[path].notes {
		if n.IID == iid && !n.System {
			out = append(out, n.Body)
		}
	}
	return out
}

func (s *Server) addNote(p *project, is *issue, username, body string, system bool) *note {
	s.nextID++
	t := s.Now()
	n := &note{ID: s.nextID, IID: is.IID, Author: username, Body: body, System: system, Created: t, hidden: s.o.NoteLag}
	if system {
		n.hidden = 0
	}
	p.notes = append(p.notes, n)
	is.Updated = t
	return n
}

// relabel sets the labels and writes GitLab's system notes for them.
func (s *Server) relabel(p *project, is *issue, by string, labels []string) {
	var added, removed []string
	for _, l := range labels {
		if !slices.Contains(is.Labels, l) {
			added = append(added, "~"+strconv.Quote(l))
		}
	}
	for _, l := range is.Labels {
		if !slices.Contains(labels, l) {
			removed = append(removed, "~"+strconv.Quote(l))
		}
	}
	is.Labels = labels
	if len(added) > 0 {
		s.addNote(p, is, by, "added "+strings.Join(added, " ")+" labels", true)
	}
	if len(removed) > 0 {
		s.addNote(p, is, by, "removed "+strings.Join(removed, " ")+" labels", true)
	}
	is.Updated = s.Now()
}

func uniq(ls []string) []string {
	out := []string{}
	for _, l := range ls {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	s.Lock()
	defer s.Unlock()
	path := strings.TrimPrefix(req.URL.EscapedPath(), s.Prefix)
	rec := Request{Method: req.Method, Path: path, Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body)}
	rw := &fakerest.Recorder{ResponseWriter: w, Status: 200}
	defer func() { s.Log().Record(rec, rw.Status) }()
	h := rw.Header()
	h.Set("Content-Type", "application/json")
	h.Set("RateLimit-Limit", "2000")
	h.Set("RateLimit-Remaining", strconv.Itoa(max(0, 2000-s.Log().Charged()-1)))
	h.Set("RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10))
	if !strings.HasPrefix(req.URL.Path, s.Prefix+"/") {
		fail(rw, http.StatusNotFound, "404 Not Found")
		return
	}
	if s.Faulted(rw, req.Method, path) {
		return
	}
	tok, ok := s.tokens[req.Header.Get("PRIVATE-TOKEN")]
	if !ok {
		fail(rw, http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	s.route(rw, req, path, body, tok)
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
