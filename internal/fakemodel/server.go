package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// API names the wire protocol of a recorded request.
type API string

// The protocols the server speaks.
const (
	Anthropic API = "anthropic" // Messages API: Claude Code
	Responses API = "responses" // Responses API: Codex
)

// StatusClientGone is the Status recorded for a held request whose
// client went away before it was answered (a killed CLI), as nginx
// logs it.
const StatusClientGone = 499

// Request is one request the server received, as a test asserts on it.
type Request struct {
	API    API
	Method string
	// Path includes the query (Claude Code sends ?beta=true).
	Path   string
	Header http.Header
	Body   []byte
	// Rule is the name of the rule that answered, "" for a side request
	// or one no rule matched.
	Rule string
	// Turn is the index of the turn that answered (-1 when none did).
	Turn int
	// Side marks a request answered outside the script: Claude's small
	// side requests without tools, count_tokens, unknown paths.
	Side bool
	// Status is the HTTP status of the answer.
	Status int
	// UserText is the conversation's user text (instruction, reminders,
	// tool results); a resumed session's request holds the earlier ones.
	UserText string
	// ToolResults are the tool results in the request's history.
	ToolResults []string
	// Answers is how many model answers the history already held.
	Answers int
	// Cwd is the working folder the CLI named in the request, or "".
	Cwd string
}

// Server is a scripted model endpoint on 127.0.0.1 for both CLIs. It
// is safe for concurrent use.
type Server struct {
	// URL is the server's base, http://127.0.0.1:PORT (Claude's
	// ANTHROPIC_BASE_URL; Codex's base_url is URL + "/v1").
	URL string

	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	// handlers counts the requests being answered, so that Close returns
	// only when none is.
	handlers sync.WaitGroup

	mu       sync.Mutex
	rules    []Rule
	requests []Request
	// errorsSent counts the errors sent per rule and turn, for Times.
	errorsSent map[[2]int]int
	// holds are the turns whose one held request has come.
	holds   map[[2]int]bool
	holding chan struct{} // closed when a request is first held
	release chan struct{} // closed by Release
	seq     int
}

// New starts a server answering with rules on a free port of 127.0.0.1.
func New(rules ...Rule) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL:        "http://" + ln.Addr().String(),
		ln:         ln,
		done:       make(chan struct{}),
		rules:      rules,
		errorsSent: map[[2]int]int{},
		holds:      map[[2]int]bool{},
		holding:    make(chan struct{}),
		release:    make(chan struct{}),
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Start is New for a test: it fails the test if the server cannot start
// and closes it when the test ends.
func Start(tb testing.TB, rules ...Rule) *Server {
	tb.Helper()
	s, err := New(rules...)
	if err != nil {
		tb.Fatalf("fakemodel: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close releases held requests, stops the server and waits for its
// goroutines; streams still open after two seconds are cut.
func (s *Server) Close() {
	s.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		_ = s.srv.Close()
	}
	<-s.done
	s.handlers.Wait()
}

// SetRules replaces the script; requests already answered are kept.
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = rules
}

// Requests returns a copy of every request answered so far, in the
// order of their answers (a held request comes when it is answered or
// its client goes away).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Scripted returns the requests answered by the rule named name (a
// rule's Name, or its Match when it has no name), in order.
func (s *Server) Scripted(name string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if !r.Side && r.Rule == name {
			out = append(out, r)
		}
	}
	return out
}

// ServeHTTP routes a request to the protocol that its path names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handlers.Add(1)
	defer s.handlers.Done()
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, Turn: -1}
	if err != nil {
		rec.Side, rec.Status = true, http.StatusBadRequest
		s.record(rec)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && p == "/v1/messages/count_tokens":
		rec.API, rec.Side = Anthropic, true
		s.countTokens(w, rec)
	case r.Method == http.MethodPost && p == "/v1/messages":
		rec.API = Anthropic
		s.messages(w, r, rec)
	case r.Method == http.MethodPost && p == "/v1/responses":
		rec.API = Responses
		s.responses(w, r, rec)
	default:
		rec.Side, rec.Status = true, http.StatusNotFound
		s.record(rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"Not found: %s %s"}}`, r.Method, jsonEscape(p))
	}
}

// Holding is closed when the first request is held by a Turn.Hold.
func (s *Server) Holding() <-chan struct{} { return s.holding }

// Release answers every held request, and every later one at once.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

// hold waits, for a held request, until Release or until the client
// goes away; it reports whether the answer is still wanted.
func (s *Server) hold(r *http.Request, held bool) bool {
	if !held {
		return true
	}
	select {
	case <-s.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// pick finds the rule and turn that answer c, whether this request gets
// the turn's error, and whether it is held first; it fills rec's
// conversation fields.
func (s *Server) pick(rec *Request, c conversation) (turn Turn, fail, held bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.UserText, rec.ToolResults, rec.Answers, rec.Cwd = c.UserText, c.ToolResults, c.Answers, c.Cwd
	for i, rule := range s.rules {
		if !rule.matches(c.UserText) {
			continue
		}
		rec.Rule = rule.Name
		if rec.Rule == "" {
			rec.Rule = rule.Match
		}
		turn = Turn{Text: "Done."}
		switch {
		case c.Answers < len(rule.Turns):
			turn, rec.Turn = rule.Turns[c.Answers], c.Answers
		case rule.After != nil:
			turn = *rule.After
		}
		turn = turn.withCwd(c.Cwd)
		key := [2]int{i, c.Answers}
		if turn.Hold && !s.holds[key] {
			s.holds[key], held = true, true
			select {
			case <-s.holding:
			default:
				close(s.holding)
			}
		}
		if turn.Error != nil {
			if turn.Error.Times == 0 || s.errorsSent[key] < turn.Error.Times {
				s.errorsSent[key]++
				return turn, true, held
			}
		}
		return turn, false, held
	}
	return Turn{Text: "No script matches this conversation."}, false, false
}

// record appends a finished request to the log.
func (s *Server) record(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
}

// nextID is a fresh number for message, tool and response ids.
func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// errRequest is a body the server could not read as its protocol's JSON.
var errRequest = errors.New("invalid request body")
