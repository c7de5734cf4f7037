package tui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/live"
)

// wireServer is a controller stand-in at the byte level: it greets, then
// records every request line and answers it, so that the test sees
// exactly what the window put on the wire.
type wireServer struct {
	mu   sync.Mutex
	reqs []relay.Envelope
	l    net.Listener
	seen chan struct{} // signalled after each request
}

func startWireServer(t *testing.T) (*wireServer, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "tuiwire")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := &wireServer{l: l, seen: make(chan struct{}, 1)}
	t.Cleanup(func() { l.Close() })
	go s.serve()
	return s, path
}

func (s *wireServer) serve() {
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		go s.conn(c)
	}
}

func (s *wireServer) conn(c net.Conn) {
	defer c.Close()
	send := func(v any) {
		b, _ := json.Marshal(v)
		c.Write(append(b, '\n'))
	}
	send(map[string]any{"v": relay.Version, "type": "hello", "body": map[string]any{"server": "wire-test", "pid": 1}})
	sc := bufio.NewScanner(c)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e relay.Envelope
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, e)
		s.mu.Unlock()
		select {
		case s.seen <- struct{}{}:
		default:
		}
		switch e.Type {
		case relay.TypeObserve:
			send(map[string]any{"v": relay.Version, "type": "reply", "re": e.ID, "body": map[string]any{"route": map[string]any{}, "controller": map[string]any{"state": "ready", "pid": 1}}})
		case relay.TypePing:
			send(map[string]any{"v": relay.Version, "type": "pong", "re": e.ID})
		default:
			send(map[string]any{"v": relay.Version, "type": "ack", "re": e.ID, "body": map[string]any{"task_id": "T1", "active_step": "S1"}})
		}
	}
}

func (s *wireServer) requests() []relay.Envelope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]relay.Envelope(nil), s.reqs...)
}

// waitRequests waits until the server has seen n requests, or fails
// after a deadline.
func (s *wireServer) waitRequests(t *testing.T, n int) []relay.Envelope {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		got := s.requests()
		if len(got) >= n {
			return got
		}
		select {
		case <-s.seen:
		case <-deadline.C:
			t.Fatalf("server saw %d requests, want %d: %+v", len(got), n, got)
		}
	}
}

// TestRelayBoundary proves that the window cannot execute, route, take
// over or release anything: driven with every command a person could
// type, it puts only forward and observe requests on the wire (through
// the real relay client), and the client refuses the forbidden actions
// outright.
func TestRelayBoundary(t *testing.T) {
	srv, path := startWireServer(t)
	client, err := relay.NewClient("", relay.ClientConfig{SocketPath: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts := testOptions("en")
	opts.Relay = NewRelayLink(client)
	fd := opts.Feed.(*fakeFeed)
	t.Cleanup(fd.Close)
	tm := teatest.NewTestModel(t, New(ctx, opts), teatest.WithInitialTermSize(120, 40))
	typed := []string{"please build it", "/takeover", "/release S1", "/execute S1", "/route worker",
		"/retry", "/cancel", "/status", "takeover the lease"}
	// Typed by a person: each message is in the box before its Enter, and
	// the box is empty again before the next. (Sent back to back, the
	// lines and their Enters are a paste without bracketed paste, which is
	// one message.) The placeholder's first letter is drawn under the
	// cursor, so the rest of it is looked for.
	_, placeholder, _ := strings.Cut(i18n.MustNew(opts.Lang).T("tui.input.placeholder"), "T")
	var seen []byte // what the waits read
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
			seen = append(seen, b...)
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	for _, s := range typed {
		tm.Send(keyMsg(s))
		wait("› " + s)
		tm.Send(keyMsg("enter"))
		wait(placeholder)
	}
	// observe + 2 instructions + 3 control requests.
	srv.waitRequests(t, 6)
	if !bytes.Contains(seen, []byte("delivered")) {
		wait("delivered")
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	reqs := srv.requests()

	var kinds []string
	for _, e := range reqs {
		if err := relay.Guard(e.Action); err != nil {
			t.Errorf("the window sent action %q: %v", e.Action, err)
		}
		switch e.Type {
		case relay.TypeInstruction, relay.TypeObserve, relay.TypeHello, relay.TypePing:
		case relay.TypeControl:
			var c relay.Control
			if err := json.Unmarshal(e.Body, &c); err != nil || !c.Kind.Valid() {
				t.Errorf("control request with kind %q", c.Kind)
			}
			kinds = append(kinds, string(c.Kind))
		default:
			t.Errorf("the window sent a %q request", e.Type)
		}
		if e.Action != relay.ActionForward && e.Action != relay.ActionObserve {
			t.Errorf("action %q is neither forward nor observe", e.Action)
		}
	}
	sort.Strings(kinds)
	if want := []string{"cancel", "retry", "status"}; !slices.Equal(kinds, want) {
		t.Errorf("control kinds on the wire %q, want %q", kinds, want)
	}
	if len(reqs) != 6 {
		t.Errorf("%d requests on the wire, want 6: %+v", len(reqs), reqs)
	}

	// The client itself refuses what the window must never do.
	for _, action := range []string{"execute", "route", "takeover", "release", "dispatch"} {
		_, err := client.Send(context.Background(), relay.Envelope{Type: relay.TypeControl, Action: action})
		var fa *relay.ForbiddenActionError
		if !errors.As(err, &fa) {
			t.Errorf("client.Send with action %q: %v, want a ForbiddenActionError", action, err)
		}
		if _, err := client.Control(context.Background(), relay.Control{Kind: relay.ControlKind(action)}); err == nil {
			t.Errorf("client.Control with kind %q was accepted", action)
		}
	}
	// The window's connection observes, so it cannot carry a person's
	// takeover or handoff either: those come from daokit's own short
	// connection (relay.GuardOperation).
	for _, kind := range []relay.OperationKind{relay.OperateTakeover, relay.OperateHandoffCreate, relay.OperateHandoffApply} {
		if _, err := client.Operate(context.Background(), relay.Operation{Kind: kind}); relay.CodeOf(err) != relay.CodeObserving {
			t.Errorf("client.Operate(%s) on the window's connection: %v, want %s", kind, err, relay.CodeObserving)
		}
	}
	if n := len(srv.requests()); n != len(reqs) {
		t.Errorf("refused requests reached the wire: %d requests, want %d", n, len(reqs))
	}
}

// TestRelayBoundaryInCode checks the window's code: only feed_relay.go
// imports the relay package, it calls nothing on the client but the
// forward and observe methods, and the interface the window consumes has
// no method that could execute, route, take over or release.
func TestRelayBoundaryInCode(t *testing.T) {
	allowed := map[string]bool{"Forward": true, "FollowUp": true, "Control": true, "Observe": true, "Notices": true, "States": true}
	_, files := parseCode(t)
	for _, cf := range files {
		path, f := cf.path, cf.file
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/daokit/daokit/relay" && path != "feed_relay.go" {
				t.Errorf("%s imports the relay package; only feed_relay.go may", path)
			}
		}
		if path != "feed_relay.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.SelectorExpr); ok && x.Sel.Name == "client" && !allowed[n.Sel.Name] {
					t.Errorf("feed_relay.go calls client.%s", n.Sel.Name)
				}
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "relay" && (n.Sel.Name == "Envelope" || strings.HasPrefix(n.Sel.Name, "Action")) {
					t.Errorf("feed_relay.go builds raw requests (relay.%s)", n.Sel.Name)
				}
			case *ast.InterfaceType:
				for _, m := range n.Methods.List {
					for _, name := range m.Names {
						if !allowed[name.Name] {
							t.Errorf("RelayClient has method %s", name.Name)
						}
					}
				}
			}
			return true
		})
	}
	var methods []string
	rt := reflect.TypeOf((*live.Relay)(nil)).Elem()
	for i := range rt.NumMethod() {
		methods = append(methods, rt.Method(i).Name)
	}
	if want := []string{"Control", "Forward", "Next", "Observe"}; !slices.Equal(methods, want) {
		t.Errorf("live.Relay has methods %v, want exactly %v", methods, want)
	}
	methods = methods[:0]
	st := reflect.TypeOf((*live.Steering)(nil)).Elem()
	for i := range st.NumMethod() {
		methods = append(methods, st.Method(i).Name)
	}
	if want := []string{"ControlTask", "FollowUp"}; !slices.Equal(methods, want) {
		t.Errorf("live.Steering has methods %v, want exactly %v", methods, want)
	}
	for _, k := range live.ControlKinds() {
		if !relay.ControlKind(k).Valid() {
			t.Errorf("the window's control kind %q is not one the relay knows", k)
		}
	}
}
