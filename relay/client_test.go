package relay

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClientRequests(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.status = Status{Route: Route{TaskID: "T-1", ActiveStep: "S1"}, Controller: ControllerState{State: "ready"}}
	ts := startServer(t, h, ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	ctx := testCtx(t)

	a, err := c.Forward(ctx, "add a test")
	if err != nil || a.TaskID != "T-1" || a.Duplicate {
		t.Fatalf("Forward = %+v, %v; want a fresh ack for T-1", a, err)
	}
	if _, err := c.Control(ctx, Control{Kind: ControlCancel, RunID: "R"}); err != nil {
		t.Fatalf("Control: %v", err)
	}
	st, err := c.Observe(ctx)
	if err != nil || st.Route.ActiveStep != "S1" {
		t.Fatalf("Observe = %+v, %v; want the handler's status", st, err)
	}
	if _, err := c.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	reply, err := c.Send(ctx, Envelope{Type: TypeHello, Action: ActionObserve})
	var hello Hello
	if err != nil || reply.DecodeBody(&hello) != nil || hello.Server != "daokit" || hello.MaxLine != DefaultMaxLine {
		t.Fatalf("hello = %+v, %v", hello, err)
	}
	if _, err := c.Forward(ctx, "   "); CodeOf(err) != CodeBadRequest {
		t.Errorf("Forward(blank) = %v, want bad_request", err)
	}
	if n := h.totalCalls(); n != 2 {
		t.Errorf("handler calls = %d, want 2", n)
	}
}

func TestClientCallerChosenIDIsIdempotent(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	env := Envelope{ID: "send-42", Type: TypeInstruction, Action: ActionForward, Body: []byte(`{"text":"once"}`)}
	first, err := c.Send(testCtx(t), env)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Send(testCtx(t), env)
	if err != nil {
		t.Fatal(err)
	}
	var a1, a2 Ack
	_ = first.DecodeBody(&a1)
	_ = again.DecodeBody(&a2)
	if a1.Duplicate || !a2.Duplicate || a1.RunID != a2.RunID {
		t.Errorf("acks %+v then %+v, want the same route, the second marked duplicate", a1, a2)
	}
	if got := h.uniqueInstructions(); got != 1 {
		t.Errorf("controller recorded %d instructions, want 1", got)
	}
}

func TestClientHandlerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"controller code", &Error{Code: "unknown_run", Detail: "R9"}, "unknown_run"},
		{"plain error", errors.New("disk full"), CodeInternal},
		{"shutting down", context.Canceled, CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHandler()
			h.err = tt.err
			ts := startServer(t, h, ServerConfig{})
			c := dialTest(t, ts.path, fastClient(ts.path))
			_, err := c.Forward(testCtx(t), "x")
			if CodeOf(err) != tt.want {
				t.Fatalf("Forward = %v, want code %s", err, tt.want)
			}
			// A handler error is the request's, not the connection's.
			if _, err := c.Ping(testCtx(t)); err != nil {
				t.Fatalf("Ping after a handler error: %v", err)
			}
		})
	}
}

func TestClientHandlerPanicIsContained(t *testing.T) {
	t.Parallel()
	path := startServerWith(t, panicHandler{newFakeHandler()})
	c := dialTest(t, path, fastClient(path))
	if _, err := c.Forward(testCtx(t), "boom"); CodeOf(err) != CodeInternal || !strings.Contains(detailOf(err), "panic") {
		t.Fatalf("Forward to a panicking handler = %v, want internal panic", err)
	}
	if _, err := c.Ping(testCtx(t)); err != nil {
		t.Fatalf("server died with its handler: %v", err)
	}
}

type panicHandler struct{ *fakeHandler }

func (panicHandler) HandleInstruction(context.Context, Request, Instruction) (Ack, error) {
	panic("handler bug")
}

// startServerWith runs a server for any Handler and returns its socket.
func startServerWith(t testing.TB, h Handler) string {
	t.Helper()
	path := filepath.Join(shortDir(t), "s.sock")
	l, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(h, ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), l) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	return path
}

func TestClientResendsSameIDAfterDrop(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"while handling", "after handling"} {
		t.Run(when, func(t *testing.T) {
			t.Parallel()
			h := newFakeHandler()
			ts := startServer(t, h, ServerConfig{})
			if when == "while handling" {
				h.gate = make(chan struct{})
				h.entered = make(chan string, 4)
			} else {
				// The instruction is recorded, then its ack is lost with
				// the connection.
				h.onRecord = ts.l.dropAll
			}
			c := dialTest(t, ts.path, fastClient(ts.path))
			type result struct {
				a   Ack
				err error
			}
			res := make(chan result, 1)
			go func() {
				a, err := c.Forward(testCtx(t), "survive the drop")
				res <- result{a, err}
			}()
			if when == "while handling" {
				<-h.entered
				ts.l.dropAll()
				// The resend waits for the first attempt rather than
				// reaching the handler a second time at once.
				close(h.gate)
			}
			r := <-res
			if r.err != nil {
				t.Fatalf("Forward = %v, want an ack after the reconnect", r.err)
			}
			if !r.a.Duplicate {
				t.Errorf("ack %+v, want Duplicate: the resend must carry the same id", r.a)
			}
			if got := h.uniqueInstructions(); got != 1 {
				t.Errorf("controller recorded %d instructions, want 1", got)
			}
		})
	}
}

func TestClientStates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shortDir(t), "later.sock")
	c, err := NewClient("", fastClient(path))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	next := func(want ConnState) StateChange {
		t.Helper()
		timeout := time.After(waitTimeout)
		for {
			select {
			case s := <-c.States():
				if s.State == want {
					return s
				}
			case <-timeout:
				t.Fatalf("no %v state; current %+v", want, c.State())
			}
		}
	}
	r := next(StateReconnecting)
	if r.Attempt < 1 || CodeOf(r.Err) != CodeUnavailable {
		t.Errorf("reconnecting = %+v, want attempt >= 1 and an unavailable error", r)
	}
	ts := startServerAt(t, path)
	next(StateConnected)
	if _, err := c.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	ts.l.dropAll()
	if d := next(StateDisconnected); d.Err == nil {
		t.Errorf("disconnected without a reason")
	}
	next(StateConnected)
	_ = c.Close()
	last := StateChange{State: -1}
	for s := range c.States() {
		last = s
	}
	if last.State != StateClosed {
		t.Errorf("last state %v, want closed", last.State)
	}
	if _, err := c.Forward(testCtx(t), "late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Forward after Close = %v, want ErrClosed", err)
	}
}

// startServerAt runs a fake-handler server on a given path.
func startServerAt(t *testing.T, path string) *testServer {
	t.Helper()
	ul, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeHandler()
	s, err := NewServer(h, ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	l := &trackingListener{UnixListener: ul}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), l) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	return &testServer{Server: s, path: path, l: l, h: h}
}

func TestDialWithoutServer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Dial(ctx, shortDir(t), fastClient(""))
	if err == nil || CodeOf(err) != CodeUnavailable || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dial = %v, want a timeout whose code is unavailable", err)
	}
}

func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.gate = make(chan struct{})
	ts := startServer(t, h, ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Forward(ctx, "slow")
	if !errors.Is(err, context.DeadlineExceeded) || CodeOf(err) != CodeTimeout {
		t.Fatalf("Forward = %v, want a deadline error with code timeout", err)
	}
	close(h.gate)
	if _, err := c.Forward(testCtx(t), "next"); err != nil {
		t.Fatalf("Forward after a timeout: %v", err)
	}
}

func TestClientWrongRoot(t *testing.T) {
	t.Parallel()
	mine, theirs := shortDir(t), shortDir(t)
	path := filepath.Join(shortDir(t), "s.sock")
	l, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewServer(newFakeHandler(), ServerConfig{Root: theirs})
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), l) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	cfg := fastClient(path)
	if _, err := Dial(ctx, mine, cfg); CodeOf(err) != CodeWrongRoot {
		t.Fatalf("Dial to another root's server = %v, want wrong_root", err)
	}
	if c, err := Dial(testCtx(t), theirs, cfg); err != nil {
		t.Fatalf("Dial to the right root: %v", err)
	} else {
		_ = c.Close()
	}
}

func TestClientRefusesOversizedRequest(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	c := dialTest(t, ts.path, fastClient(ts.path))
	before := ts.l.read.Load()
	_, err := c.Forward(testCtx(t), strings.Repeat("x", testMaxLine))
	if !errors.Is(err, &Error{Code: CodeTooLarge}) {
		t.Fatalf("Forward(too long) = %v, want too_large", err)
	}
	if ts.l.read.Load() != before {
		t.Errorf("the oversized request reached the server")
	}
}

func TestObserveNoticesAndResubscribe(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.status = Status{Route: Route{TaskID: "T-1"}}
	ts := startServer(t, h, ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	notice := func() Notice {
		t.Helper()
		select {
		case n := <-c.Notices():
			return n
		case <-time.After(waitTimeout):
			t.Fatal("no notice")
		}
		return Notice{}
	}
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if n := notice(); n.Kind != NoticeStatus || n.Status.Route.TaskID != "T-1" {
		t.Fatalf("first notice %+v, want the status", n)
	}
	if err := ts.Notify(Notice{Kind: NoticeRoute, Route: &Route{TaskID: "T-2"}}); err != nil {
		t.Fatal(err)
	}
	if n := notice(); n.Kind != NoticeRoute || n.Route.TaskID != "T-2" {
		t.Fatalf("got %+v, want the route notice", n)
	}

	h.mu.Lock()
	h.status.Route.TaskID = "T-3"
	h.mu.Unlock()
	ts.l.dropAll()
	if n := notice(); n.Kind != NoticeStatus || n.Status.Route.TaskID != "T-3" {
		t.Fatalf("after reconnect got %+v (status %+v), want a fresh status", n, n.Status)
	}
	waitFor(t, "the new connection to observe", func() bool { return ts.Stats().Observers == 1 })
	if err := ts.Notify(Notice{Kind: NoticeRunState, Run: &RunState{RunID: "R", State: "generating"}}); err != nil {
		t.Fatal(err)
	}
	if n := notice(); n.Kind != NoticeRunState || n.Run.State != "generating" {
		t.Fatalf("got %+v, want the run state notice", n)
	}
}

func TestNotifyRejectsBadNotices(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	for _, n := range []Notice{
		{Kind: NoticeRoute},
		{Kind: "gossip", Route: &Route{}},
		{Kind: NoticeDropped, Dropped: 3},
		{Kind: NoticeRoute, Route: &Route{TaskID: strings.Repeat("T", testMaxLine)}},
	} {
		if err := ts.Notify(n); err == nil {
			t.Errorf("Notify(%+v) = nil, want an error", n.Kind)
		}
	}
}

func TestLongWorkerOutputIsTruncated(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("数据\"\\", testMaxLine)
	if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: text}}); err != nil {
		t.Fatal(err)
	}
	n := nextOutput(t, c)
	if !n.Output.Truncated || !strings.HasPrefix(text, n.Output.Line) || len(n.Output.Line) < testMaxLine/4 {
		t.Fatalf("got %+v, want a truncated prefix of the line", n.Output)
	}
}

func TestClientConcurrentUse(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 20 {
		wg.Go(func() {
			for j := range 10 {
				if _, err := c.Forward(testCtx(t), strings.Repeat("x", i+j+1)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := h.uniqueInstructions(); got != 200 {
		t.Errorf("recorded %d instructions, want 200", got)
	}
}

// TestRequestSurvivesControllerRestart: the controller stops while an
// instruction is in its handler, and a new one takes over the socket. The
// instruction is not reported as failed: it reaches the new controller.
func TestRequestSurvivesControllerRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shortDir(t), "s.sock")
	old := startServerAt(t, path)
	old.h.gate = make(chan struct{})
	old.h.entered = make(chan string, 1)
	c := dialTest(t, path, fastClient(path))
	type result struct {
		a   Ack
		err error
	}
	res := make(chan result, 1)
	go func() {
		a, err := c.Forward(testCtx(t), "keep me")
		res <- result{a, err}
	}()
	<-old.h.entered
	_ = old.Close() // its handler gives up on the cancelled context
	next := startServerAt(t, path)
	r := <-res
	if r.err != nil {
		t.Fatalf("Forward across a restart = %v, want the new controller's ack", r.err)
	}
	if got := next.h.uniqueInstructions(); got != 1 || old.h.uniqueInstructions() != 0 {
		t.Errorf("recorded old=%d new=%d, want the instruction on the new controller only", old.h.uniqueInstructions(), got)
	}
}

// TestFlappingServerBacksOff: a server that greets and hangs up at once
// must not make the client spin; short-lived connections keep the backoff
// growing.
func TestFlappingServerBacksOff(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shortDir(t), "flap.sock")
	l, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = nc.Write([]byte(`{"v":1,"type":"hello","body":{}}` + "\n" + `{"v":1,"type":"error","body":{"code":"unavailable","detail":"going away"}}` + "\n"))
			_ = nc.Close()
		}
	}()
	c, err := NewClient("", fastClient(path))
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(waitTimeout)
	for done := false; !done; {
		select {
		case s := <-c.States():
			if s.State == StateReconnecting && s.Attempt >= 4 {
				if CodeOf(s.Err) != CodeUnavailable || detailOf(s.Err) != "going away" {
					t.Errorf("reconnecting after %v, want the server's unavailable", s.Err)
				}
				done = true
			}
		case <-timeout:
			t.Fatalf("no growing backoff; state %+v", c.State())
		}
	}
	_ = c.Close()
	_ = l.Close()
	<-accepted
}

func TestOversizedStatusIsRefusedNotSent(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.status = Status{Route: Route{NextAction: strings.Repeat("n", 2*testMaxLine)}}
	ts := startServer(t, h, ServerConfig{MaxLine: testMaxLine})
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Observe(testCtx(t)); !errors.Is(err, &Error{Code: CodeTooLarge}) {
		t.Fatalf("Observe of a huge status = %v, want too_large", err)
	}
	if _, err := c.Ping(testCtx(t)); err != nil {
		t.Fatalf("connection unusable after: %v", err)
	}
}

// nextOutput returns the next worker output notice, passing over status
// notices (one follows Observe, and one each reconnect).
func nextOutput(t *testing.T, c *Client) Notice {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case n, ok := <-c.Notices():
			switch {
			case !ok:
				t.Fatal("Notices closed")
			case n.Kind == NoticeWorkerOutput && n.Output != nil:
				return n
			case n.Kind != NoticeStatus:
				t.Fatalf("got notice %+v, want worker output (state %+v)", n, c.State())
			}
		case <-timeout:
			t.Fatal("no worker output notice")
		}
	}
}
