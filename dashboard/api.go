package dashboard

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
)

// The Python DAOKit's dashboard API, for scripts: the documents and the
// newest events as JSON, behind the same token. Its POST /api/message
// appended a HUMAN event to the ledger itself; here it forwards the
// message to the controller as the input does (the page never writes the
// ledger), and its POST /api/run (which started a run from the dashboard)
// does not exist.

// Defaults and bounds of GET /api/events (Python's default is 50).
const (
	apiEventsDefault = 50
	apiEventsMax     = 10000
	// apiTaskWindow is how many of the newest lines a task_id filter
	// searches, as `daokit status` reads its recent history.
	apiTaskWindow = 50000
)

// serveDocument answers GET /api/state, /api/heartbeat or /api/leases
// with the document as the ledger holds it, or 503 naming why it cannot
// be read.
func (s *Server) serveDocument(w http.ResponseWriter, r *http.Request) {
	st, err := s.hub.current(r.Context())
	if err != nil {
		return
	}
	snap := st.Snapshot
	var doc json.Marshaler
	var docErr error
	switch r.PathValue("doc") {
	case "state":
		doc, docErr = snap.Pipeline.Value, snap.Pipeline.Err
	case "heartbeat":
		doc, docErr = snap.Heartbeat.Value, snap.Heartbeat.Err
	case "leases":
		doc, docErr = snap.Leases.Value, snap.Leases.Err
	default:
		http.NotFound(w, r)
		return
	}
	if docErr != nil {
		apiJSON(w, http.StatusServiceUnavailable, map[string]string{"error": docErr.Error()})
		return
	}
	apiJSON(w, http.StatusOK, doc)
}

// serveEvents answers GET /api/events?limit=N[&task_id=T]: the newest
// events (of one task), oldest first, read from events.jsonl.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	st, err := s.hub.current(r.Context())
	if err != nil {
		return
	}
	q := r.URL.Query()
	limit := apiEventsDefault
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			apiJSON(w, http.StatusBadRequest, map[string]string{"error": s.localizer(r).T("dashboard.api.bad_limit", "Value", v)})
			return
		}
		limit = min(max(n, 1), apiEventsMax)
	}
	path := ledger.Layout{Root: st.Snapshot.Root}.Events()
	task := strings.TrimSpace(q.Get("task_id"))
	var res ledger.TailResult
	if task == "" {
		res, err = ledger.TailEvents(path, limit)
	} else {
		res, err = ledger.TailMatching(path, apiTaskWindow, []byte(task))
	}
	if err != nil {
		apiJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	events := make([]ledger.Event, 0, len(res.Events))
	for _, e := range res.Events {
		if task == "" || e.TaskID == task {
			events = append(events, e)
		}
	}
	if n := len(events) - limit; n > 0 {
		events = events[n:]
	}
	apiJSON(w, http.StatusOK, events)
}

// serveMessage answers POST /api/message {"message": "..."}: the message
// is forwarded to the controller, as the page's input forwards it.
func (s *Server) serveMessage(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Message string `json:"message"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSendBytes)
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		answer(w, http.StatusBadRequest, sendAnswer{Message: s.localizer(r).T("dashboard.send.bad_request")})
		return
	}
	s.forward(w, r, body.Message)
}

func apiJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
