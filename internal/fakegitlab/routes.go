package fakegitlab

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/fakerest"
)

func (s *Server) route(w http.ResponseWriter, req *http.Request, path string, body []byte, tok Token) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 1 && parts[0] == "user":
		fakerest.Reply(w, req, 200, s.userJSON(tok.Username))
		return
	case len(parts) == 1 && parts[0] == "users":
		var out []any
		if name := req.URL.Query().Get("username"); name != "" {
			if _, ok := s.users[name]; ok {
				out = append(out, s.userJSON(name))
			}
		}
		fakerest.Reply(w, req, 200, nonNil(out))
		return
	}
	if len(parts) < 2 || parts[0] != "projects" {
		fail(w, http.StatusNotFound, "404 Not Found")
		return
	}
	// The project is its URL-encoded path (group%2Fsub%2Fname) or its
	// numeric id; a bare slash would make another route.
	name, _ := url.PathUnescape(parts[1])
	p, ok := s.projects[name]
	if !ok {
		for _, q := range s.projects {
			if strconv.FormatInt(q.id, 10) == name {
				p, ok = q, true
			}
		}
	}
	if !ok {
		fail(w, http.StatusNotFound, "404 Project Not Found")
		return
	}
	rest := parts[2:]
	if req.Method != http.MethodGet && tok.Level < 20 && !(len(rest) == 3 && rest[2] == "notes" && tok.Level >= 10) {
		fail(w, http.StatusForbidden, "403 Forbidden")
		return
	}
	switch {
	case len(rest) == 0 && req.Method == http.MethodGet:
		fakerest.Reply(w, req, 200, map[string]any{"id": p.id, "path_with_namespace": p.path, "issues_enabled": true,
			"permissions": map[string]any{"project_access": map[string]int{"access_level": tok.Level, "notification_level": 3}, "group_access": nil}})
	case len(rest) == 1 && rest[0] == "issues" && req.Method == http.MethodGet:
		s.listIssues(w, req, p)
	case len(rest) == 1 && rest[0] == "issues" && req.Method == http.MethodPost:
		var in struct {
			Title       string  `json:"title"`
			Description string  `json:"description"`
			Labels      string  `json:"labels"`
			AssigneeIDs []int64 `json:"assignee_ids"`
		}
		if json.Unmarshal(body, &in) != nil || in.Title == "" {
			fail(w, http.StatusBadRequest, "400 Bad request - title is missing")
			return
		}
		is := s.open(p, tok.Username, in.Title, in.Description, strings.Split(in.Labels, ","), s.names(in.AssigneeIDs))
		fakerest.Reply(w, req, http.StatusCreated, s.issueJSON(p, is))
	case len(rest) >= 2 && rest[0] == "issues":
		n, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || n < 1 || int(n) > len(p.issues) {
			fail(w, http.StatusNotFound, "404 Not found")
			return
		}
		s.onIssue(w, req, p, p.issues[n-1], rest[2:], body, tok)
	case len(rest) >= 1 && rest[0] == "merge_requests":
		s.onMergeRequests(w, req, p, rest[1:], body, tok)
	case len(rest) == 1 && rest[0] == "pipelines" && req.Method == http.MethodGet:
		s.listPipelines(w, req, p)
	default:
		fail(w, http.StatusNotFound, "404 Not Found")
	}
}

func (s *Server) onIssue(w http.ResponseWriter, req *http.Request, p *project, is *issue, rest []string, body []byte, tok Token) {
	switch {
	case len(rest) == 0 && req.Method == http.MethodGet:
		fakerest.Reply(w, req, 200, s.issueJSON(p, is))
	case len(rest) == 0 && req.Method == http.MethodPut:
		var in struct {
			Title        *string  `json:"title"`
			Description  *string  `json:"description"`
			StateEvent   string   `json:"state_event"`
			Labels       *string  `json:"labels"`
			AddLabels    string   `json:"add_labels"`
			RemoveLabels string   `json:"remove_labels"`
			AssigneeIDs  *[]int64 `json:"assignee_ids"`
		}
		if json.Unmarshal(body, &in) != nil {
			fail(w, http.StatusBadRequest, "400 Bad request")
			return
		}
		if in.Title != nil {
			is.Title = *in.Title
		}
		if in.Description != nil {
			is.Body = *in.Description
		}
		labels := slices.Clone(is.Labels)
		if in.Labels != nil {
			labels = strings.Split(*in.Labels, ",")
		}
		labels = append(labels, strings.Split(in.AddLabels, ",")...)
		for _, l := range strings.Split(in.RemoveLabels, ",") {
			labels = slices.DeleteFunc(labels, func(x string) bool { return x == strings.TrimSpace(l) })
		}
		if labels = uniq(labels); !slices.Equal(labels, is.Labels) {
			s.relabel(p, is, tok.Username, labels)
		}
		if in.AssigneeIDs != nil {
			is.Assignees = s.names(*in.AssigneeIDs)
			is.Updated = s.Now()
		}
		switch {
		case in.StateEvent == "close" && is.State != "closed":
			is.State = "closed"
			s.addNote(p, is, tok.Username, "closed", true)
		case in.StateEvent == "reopen" && is.State != "opened":
			is.State = "opened"
			s.addNote(p, is, tok.Username, "reopened", true)
		}
		fakerest.Reply(w, req, 200, s.issueJSON(p, is))
	case len(rest) == 1 && rest[0] == "notes" && req.Method == http.MethodGet:
		s.listNotes(w, req, p, is)
	case len(rest) == 1 && rest[0] == "notes" && req.Method == http.MethodPost:
		var in struct {
			Body string `json:"body"`
		}
		if json.Unmarshal(body, &in) != nil || in.Body == "" {
			fail(w, http.StatusBadRequest, "400 Bad request - body is missing")
			return
		}
		fakerest.Reply(w, req, http.StatusCreated, s.noteJSON(p, s.addNote(p, is, tok.Username, in.Body, false)))
	default:
		fail(w, http.StatusNotFound, "404 Not Found")
	}
}

func (s *Server) names(ids []int64) []string {
	out := []string{}
	for _, id := range ids {
		for name, uid := range s.users {
			if uid == id {
				out = append(out, name)
			}
		}
	}
	return out
}

func (s *Server) listIssues(w http.ResponseWriter, req *http.Request, p *project) {
	q := req.URL.Query()
	var after time.Time
	if a := q.Get("updated_after"); a != "" {
		t, err := time.Parse(time.RFC3339, a)
		if err != nil {
			fail(w, http.StatusBadRequest, "400 Bad request - updated_after is invalid")
			return
		}
		after = t
	}
	var out []*issue
	for _, is := range p.issues {
		if a := q.Get("author_username"); a != "" && is.Author != a {
			continue
		}
		if st := q.Get("state"); st != "" && st != "all" && is.State != st {
			continue
		}
		if !after.IsZero() && is.Updated.Before(after) {
			continue
		}
		out = append(out, is)
	}
	key := func(is *issue) time.Time { return is.Created }
	if q.Get("order_by") == "updated_at" {
		key = func(is *issue) time.Time { return is.Updated }
	}
	slices.SortStableFunc(out, func(a, b *issue) int { return key(a).Compare(key(b)) })
	if q.Get("sort") != "asc" { // GitLab's default is desc
		slices.Reverse(out)
	}
	var js []any
	for _, is := range page(s, w, req, out) {
		js = append(js, s.issueJSON(p, is))
	}
	fakerest.Reply(w, req, 200, nonNil(js))
}

func (s *Server) listNotes(w http.ResponseWriter, req *http.Request, p *project, is *issue) {
	var out []*note
	for _, n := range p.notes {
		if n.IID != is.IID {
			continue
		}
		if n.hidden > 0 {
			n.hidden--
			continue
		}
		out = append(out, n)
	}
	if req.URL.Query().Get("sort") != "asc" {
		slices.Reverse(out)
	}
	var js []any
	for _, n := range page(s, w, req, out) {
		js = append(js, s.noteJSON(p, n))
	}
	fakerest.Reply(w, req, 200, nonNil(js))
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// page cuts items to the request's page and sets GitLab's pagination
// headers: X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total,
// X-Total-Pages, and a Link header (next, prev, first, last) unless
// NoLink.
func page[T any](s *Server, w http.ResponseWriter, req *http.Request, items []T) []T {
	q := req.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 20
	}
	per = min(per, s.o.PageSize)
	pg, _ := strconv.Atoi(q.Get("page"))
	if pg <= 0 {
		pg = 1
	}
	last := max(1, (len(items)+per-1)/per)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(pg))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(len(items)))
	h.Set("X-Total-Pages", strconv.Itoa(last))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(n int, rel string) string {
		q.Set("page", strconv.Itoa(n))
		u := url.URL{Scheme: "http", Host: req.Host, Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: q.Encode()}
		return "<" + u.String() + `>; rel="` + rel + `"`
	}
	var links []string
	if pg > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(pg-1))
		links = append(links, link(pg-1, "prev"))
	}
	if pg < last {
		h.Set("X-Next-Page", strconv.Itoa(pg+1))
		links = append(links, link(pg+1, "next"))
	}
	links = append(links, link(1, "first"), link(last, "last"))
	if !s.o.NoLink {
		h.Set("Link", strings.Join(links, ", "))
	}
	lo := min(len(items), (pg-1)*per)
	return items[lo:min(len(items), lo+per)]
}
