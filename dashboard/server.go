package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/live"
)

// Forwarder is all the page may do to the controller: forward what the
// person typed. The window's relay link (tui.RelayLink) is one; there is
// deliberately no way to execute, route, take over or release.
type Forwarder interface {
	Forward(ctx context.Context, text string) (live.Ack, error)
}

// Options configure a Server.
type Options struct {
	// Feed is the ledger feed (tui.NewLedgerSource), which the server
	// follows from Serve until it ends. Required.
	Feed live.LedgerFeed
	// Relay forwards instructions; nil serves the page read-only.
	Relay Forwarder
	// ReadOnly removes the input and refuses every POST.
	ReadOnly bool
	// Token is the access token every request must carry. Required.
	Token string
	// Lang is the page's language when the URL names none.
	Lang string
	// Tail is how many of the newest events the page keeps (default
	// DefaultTail).
	Tail int
	// ForwardTimeout bounds one forward, controller wait included
	// (default DefaultForwardTimeout).
	ForwardTimeout time.Duration
	// Logger receives what goes wrong serving (default: discarded).
	Logger *slog.Logger
}

// DefaultTail is the number of events the page shows.
const DefaultTail = 200

// DefaultForwardTimeout is how long a forward waits for the controller's
// acknowledgement: a controller that is starting or busy deserves a
// while, a person at the page does not wait for ever.
const DefaultForwardTimeout = 15 * time.Second

// Server is the dashboard of one ledger root.
type Server struct {
	o    Options
	hub  *hub
	page *template.Template
	// done closes when the server shuts down, ending every stream (an
	// open stream would otherwise hold http.Server.Shutdown).
	done     chan struct{}
	doneOnce sync.Once
}

// New checks o and returns a Server; nothing runs until Serve.
func New(o Options) (*Server, error) {
	if o.Feed == nil || o.Token == "" {
		return nil, errors.New("dashboard: a feed and a token are required")
	}
	if o.Tail <= 0 {
		o.Tail = DefaultTail
	}
	if o.ForwardTimeout <= 0 {
		o.ForwardTimeout = DefaultForwardTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Relay == nil {
		o.ReadOnly = true
	}
	if _, err := i18n.New(o.Lang); err != nil {
		o.Lang = i18n.English
	}
	page, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	return &Server{o: o, hub: newHub(o.Feed, o.Tail), page: page, done: make(chan struct{})}, nil
}

// Serve follows the ledger and answers on ln until ctx ends, then shuts
// down: open streams end, requests in flight get a moment to finish.
// It returns nil after a shutdown ctx asked for.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.o.Logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(s.shutdown)
	var wg sync.WaitGroup
	var followErr error
	wg.Go(func() {
		followErr = s.hub.run(ctx)
		cancel() // without the ledger there is nothing to serve
	})
	serveErr := make(chan error, 1)
	wg.Go(func() { serveErr <- srv.Serve(ln) })
	<-ctx.Done()
	grace, stop := context.WithTimeout(context.Background(), time.Second)
	if err := srv.Shutdown(grace); err != nil {
		// A connection the browser opened ahead of need and never used
		// counts as busy for its first seconds: close what is left.
		s.o.Logger.Debug("dashboard: closing connections left after the grace", "err", err)
		_ = srv.Close()
	}
	stop()
	wg.Wait()
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if followErr != nil && !errors.Is(followErr, context.Canceled) && !errors.Is(followErr, live.ErrClosed) {
		return fmt.Errorf("dashboard: follow the ledger: %w", followErr)
	}
	return nil
}

func (s *Server) shutdown() { s.doneOnce.Do(func() { close(s.done) }) }

// Handler returns the routes, each behind the token check.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /events", s.serveStream)
	mux.HandleFunc("POST /send", s.mayPost(s.serveSend))
	mux.HandleFunc("GET /static/{name}", s.serveAsset)
	mux.HandleFunc("GET /api/events", s.serveEvents)
	mux.HandleFunc("GET /api/{doc}", s.serveDocument)
	mux.HandleFunc("POST /api/message", s.mayPost(s.serveMessage))
	return s.guard(mux)
}

// guard refuses any request without the token (403), and sets the
// headers every answer carries: nothing is cached, no page may frame
// this one, and the token in the URL never leaves in a Referer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		if !tokenMatches(r.URL.Query().Get("token"), s.o.Token) {
			http.Error(w, s.localizer(r).T("dashboard.error.forbidden"), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localizer is the request's language: the URL's lang, else the
// server's.
func (s *Server) localizer(r *http.Request) *i18n.Localizer {
	if l, err := i18n.New(r.URL.Query().Get("lang")); err == nil && r.URL.Query().Get("lang") != "" {
		return l
	}
	return i18n.MustNew(s.o.Lang)
}
