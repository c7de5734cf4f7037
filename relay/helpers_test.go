package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// waitTimeout bounds every wait in these tests; none of them sleeps.
const waitTimeout = 10 * time.Second

// shortDir returns a fresh folder with a short path: socket paths must fit
// in 108 bytes, and t.TempDir paths carry the test name.
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// waitFor polls cond until it holds, failing the test after waitTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitTimeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// fakeHandler is an in-memory controller: it acknowledges instructions in
// order and deduplicates them by id, as the real one does with the ledger.
type fakeHandler struct {
	mu       sync.Mutex
	acks     map[string]Ack
	texts    map[string]string
	order    []string       // ids, first time seen
	calls    map[string]int // handler calls per id
	controls []Control
	outcomes map[string]Outcome // forwarded commands carried out, by id
	status   Status
	// gate, if set, is received from before each instruction is handled,
	// so a test can hold requests in flight.
	gate chan struct{}
	// entered, if set, gets the id of each instruction as it arrives.
	entered chan string
	// err, if set, is returned instead of handling.
	err error
	// onRecord, if set, runs once after the first instruction is recorded.
	onRecord func()
}

var _ Handler = (*fakeHandler)(nil)

func newFakeHandler() *fakeHandler {
	return &fakeHandler{acks: map[string]Ack{}, texts: map[string]string{}, calls: map[string]int{}}
}

func (h *fakeHandler) HandleInstruction(ctx context.Context, req Request, in Instruction) (Ack, error) {
	if h.entered != nil {
		h.entered <- req.ID
	}
	if h.gate != nil {
		select {
		case <-h.gate:
		case <-ctx.Done():
			return Ack{}, ctx.Err()
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[req.ID]++
	if h.err != nil {
		return Ack{}, h.err
	}
	if a, ok := h.acks[req.ID]; ok {
		a.Duplicate = true
		return a, nil
	}
	a := Ack{Route: Route{TaskID: "T-1", RunID: fmt.Sprint(len(h.order) + 1), ActiveLane: "default"}, EventID: "ev-" + req.ID}
	h.acks[req.ID] = a
	h.texts[req.ID] = in.Text
	h.order = append(h.order, req.ID)
	if h.onRecord != nil {
		h.onRecord()
		h.onRecord = nil
	}
	return a, nil
}

func (h *fakeHandler) HandleControl(_ context.Context, req Request, c Control) (Ack, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[req.ID]++
	h.controls = append(h.controls, c)
	return Ack{Route: Route{TaskID: c.TaskID, RunID: c.RunID, NextAction: string(c.Kind)}}, nil
}

// HandleOperation carries out a forwarded command once per id, as the
// controller does: a resend gets the first outcome, marked a duplicate.
func (h *fakeHandler) HandleOperation(_ context.Context, req Request, op Operation) (Outcome, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[req.ID]++
	if o, ok := h.outcomes[req.ID]; ok {
		o.Duplicate = true
		return o, nil
	}
	if h.outcomes == nil {
		h.outcomes = map[string]Outcome{}
	}
	o := Outcome{Output: string(op.Kind) + " " + op.TaskID + "\n", EventID: "ev-" + req.ID}
	h.outcomes[req.ID] = o
	return o, nil
}

func (h *fakeHandler) HandleObserve(context.Context, Request) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, nil
}

// totalCalls counts every handler call that got as far as the lock.
func (h *fakeHandler) totalCalls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		n += c
	}
	return n
}

func (h *fakeHandler) uniqueInstructions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.order)
}

// trackingListener remembers the connections it accepted, so that a test
// can cut them (as a crashing controller would), and counts the bytes the
// server read from them.
type trackingListener struct {
	*net.UnixListener
	mu    sync.Mutex
	conns []*net.UnixConn
	read  atomic.Int64
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.AcceptUnix()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
	return &countingConn{UnixConn: c, n: &l.read}, nil
}

// dropAll cuts every connection accepted so far.
func (l *trackingListener) dropAll() {
	l.mu.Lock()
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// countingConn embeds *net.UnixConn so that the server can still ask it
// for peer credentials.
type countingConn struct {
	*net.UnixConn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.UnixConn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// testServer is a running Server on a short socket path.
type testServer struct {
	*Server
	path string
	l    *trackingListener
	h    *fakeHandler
}

// startServer runs a Server with h until the test ends, and checks that
// Serve returns cleanly.
func startServer(t testing.TB, h *fakeHandler, cfg ServerConfig) *testServer {
	t.Helper()
	path := filepath.Join(shortDir(t), "s.sock")
	ul, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(h, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := &trackingListener{UnixListener: ul}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), l) }()
	t.Cleanup(func() {
		_ = s.Close()
		// ErrServerClosed: the test ended before Serve even started.
		if err := <-done; err != nil && !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want nil", err)
		}
	})
	return &testServer{Server: s, path: path, l: l, h: h}
}

// fastClient is a client config for tests: quick reconnects.
func fastClient(path string) ClientConfig {
	return ClientConfig{SocketPath: path, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

// dialTest connects a Client to ts and closes it when the test ends.
func dialTest(t testing.TB, path string, cfg ClientConfig) *Client {
	t.Helper()
	if cfg.SocketPath == "" {
		cfg.SocketPath = path
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := Dial(ctx, "", cfg)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testCtx returns a context that ends after waitTimeout or with the test.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// rawConn speaks the protocol by hand, to send what no Client would.
type rawConn struct {
	t  testing.TB
	nc net.Conn
	lr *lineReader
}

// dialRaw connects and reads the server's hello.
func dialRaw(t testing.TB, path string) *rawConn {
	t.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	r := &rawConn{t: t, nc: nc, lr: newLineReader(nc, 64<<20)}
	if e := r.next(); e.Type != TypeHello {
		t.Fatalf("first line type = %q, want hello", e.Type)
	}
	return r
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.nc, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// read returns the next envelope, or the read error.
func (r *rawConn) read() (Envelope, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(waitTimeout))
	line, err := r.lr.next()
	if err != nil {
		return Envelope{}, err
	}
	e, _, perr := decodeEnvelope(line)
	if perr != nil {
		return Envelope{}, perr
	}
	return e, nil
}

func (r *rawConn) next() Envelope {
	r.t.Helper()
	e, err := r.read()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	return e
}

// expectError reads the next line and checks it is an error with code
// answering re.
func (r *rawConn) expectError(code Code, re string) {
	r.t.Helper()
	e := r.next()
	var body Error
	_ = e.DecodeBody(&body)
	if e.Type != TypeError || body.Code != code || e.Re != re {
		r.t.Fatalf("got %s re=%q code=%q, want error re=%q code=%q", e.Type, e.Re, body.Code, re, code)
	}
}

// expectClosed checks that the server closed the connection.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	e, err := r.read()
	if err == nil {
		r.t.Fatalf("got %s after the error, want the connection closed", e.Type)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		r.t.Fatalf("read after the error: %v, want EOF or connection reset", err)
	}
}

// relayGoroutines returns the stacks of goroutines running relay code.
func relayGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, frame := range []string{"relay.(*Client)", "relay.(*Server)", "relay.(*conn)", "relay.(*clientConn)", "relay.NewClient"} {
			if strings.Contains(g, frame) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// checkNoRelayGoroutines fails if relay goroutines outlive their owners.
// Run it only from tests that are not parallel.
func checkNoRelayGoroutines(t testing.TB) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitTimeout)
	for {
		left := relayGoroutines()
		if len(left) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%d relay goroutines left:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	}
}
