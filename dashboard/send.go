package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/live"
)

// maxSendBytes bounds a POST body: far above any instruction a person
// types, far below what could tire the server.
const maxSendBytes = 1 << 20

// sendAnswer is the JSON a POST returns, in the page's language.
type sendAnswer struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	EventID string `json:"event_id,omitempty"`
}

// serveSend forwards the typed instruction through the relay and answers
// once the controller acknowledged it (it is durable in the ledger) or
// said why not. The page never acts on the instruction itself.
func (s *Server) serveSend(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSendBytes)
	if err := r.ParseForm(); err != nil {
		answer(w, http.StatusBadRequest, sendAnswer{Message: s.localizer(r).T("dashboard.send.bad_request")})
		return
	}
	s.forward(w, r, r.PostForm.Get("text"))
}

// mayPost refuses every POST of a read-only dashboard, and one a browser
// sent from another site's page, before the body is read.
func (s *Server) mayPost(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l := s.localizer(r)
		if s.o.ReadOnly {
			answer(w, http.StatusForbidden, sendAnswer{Message: l.T("dashboard.error.read_only")})
			return
		}
		if !sameOrigin(r) {
			answer(w, http.StatusForbidden, sendAnswer{Message: l.T("dashboard.error.forbidden")})
			return
		}
		next(w, r)
	}
}

// forward sends text to the controller and answers with its
// acknowledgement in the page's language.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, text string) {
	l := s.localizer(r)
	text = strings.TrimSpace(text)
	if text == "" {
		answer(w, http.StatusBadRequest, sendAnswer{Message: l.T("dashboard.send.empty")})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.ForwardTimeout)
	defer cancel()
	ack, err := s.o.Relay.Forward(ctx, text)
	if err != nil {
		s.o.Logger.Warn("forward failed", "err", err)
		answer(w, http.StatusBadGateway, sendAnswer{Message: l.T("dashboard.send.failed", "Reason", relayReason(l, err))})
		return
	}
	id := "dashboard.send.forwarded"
	if ack.Duplicate {
		id = "dashboard.send.duplicate"
	}
	answer(w, http.StatusOK, sendAnswer{OK: true, EventID: ack.EventID,
		Message: l.T(id, "Task", ack.TaskID, "Run", ack.RunID, "Next", ack.NextAction)})
}

// sameOrigin refuses a POST a browser sent from another site's page: the
// token already stops it (that page cannot know it), this says so
// without even parsing the body.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true // not sent by a browser's cross-site request
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// relayReason words a relay failure in the page's language, with the
// window's words for the relay's codes.
func relayReason(l *i18n.Localizer, err error) string {
	var re *live.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return l.T("tui.relay.error.timeout")
	case errors.As(err, &re):
		if s := l.T("tui.relay.error." + re.Code); s != "tui.relay.error."+re.Code {
			return s
		}
		return re.Code
	}
	return err.Error()
}

func answer(w http.ResponseWriter, code int, a sendAnswer) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(a)
}
