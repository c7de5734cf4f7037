package dashboard

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// streamGap is the shortest time between two states sent on one stream:
// changes that come closer together reach the browser as one, so a
// controller appending hundreds of events a second costs each open page
// at most ten re-renders a second.
const streamGap = 100 * time.Millisecond

// keepAlive is how often an idle stream sends a comment, so that a
// proxy or the browser does not take a quiet ledger for a dead link.
const keepAlive = 15 * time.Second

// serveStream is the page's server-sent events: at once the state as it
// is (what changed between the page's load and this connection is not
// lost), then the newest state after each ledger change, each as the
// "live" part of the page, rendered here in the page's language.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	wake, stop := s.hub.subscribe()
	defer stop()
	st, err := s.hub.current(r.Context())
	if err != nil {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	var sent uint64
	var sentAt time.Time
	first := true
	for {
		if first || st.Version != sent {
			first = false
			if err := s.sendState(w, r, st); err != nil {
				return
			}
			sent, sentAt = st.Version, time.Now()
			if err := rc.Flush(); err != nil {
				return
			}
		}
		select {
		case <-wake:
			if !s.pause(r, streamGap-time.Since(sentAt)) {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			continue
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		if st, err = s.hub.current(r.Context()); err != nil {
			return
		}
	}
}

// pause waits d (if positive) before the next state is read, and
// reports false when the stream should end instead.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// sendState writes one "ledger" event: the id is the state's version,
// the data the rendered part, one data line per line of it.
func (s *Server) sendState(w http.ResponseWriter, r *http.Request, st *State) error {
	var buf bytes.Buffer
	if err := s.page.ExecuteTemplate(&buf, "live", s.data(r, st)); err != nil {
		s.o.Logger.Error("render stream", "err", err)
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "id: %d\nevent: ledger\n", st.Version)
	// A CR would end a line early for the browser's parser.
	for line := range strings.Lines(strings.ReplaceAll(buf.String(), "\r", "")) {
		out.WriteString("data: ")
		out.WriteString(strings.TrimSuffix(line, "\n"))
		out.WriteByte('\n')
	}
	out.WriteByte('\n')
	_, err := w.Write([]byte(out.String()))
	return err
}
