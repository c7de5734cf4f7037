package relay

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const testMaxLine = 4096

func TestProtocolErrors(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{MaxLine: testMaxLine})
	long := strings.Repeat("x", testMaxLine+1)
	tests := []struct {
		name   string
		line   string
		code   Code
		re     string
		closes bool
	}{
		{"version 2", `{"v":2,"id":"a","type":"ping","action":"observe"}`, CodeBadVersion, "a", true},
		{"version 0", `{"v":0,"id":"a","type":"ping","action":"observe"}`, CodeBadVersion, "a", true},
		{"no version", `{"id":"a","type":"ping","action":"observe"}`, CodeBadVersion, "a", true},
		{"version as string", `{"v":"1","id":"a","type":"ping"}`, CodeBadVersion, "a", true},
		{"future shape", `{"v":2,"id":"a","type":{"name":"ping"}}`, CodeBadVersion, "a", true},
		{"not json", `hello there`, CodeMalformed, "", true},
		{"json array", `[1,2,3]`, CodeMalformed, "", true},
		{"json string", `"ping"`, CodeMalformed, "", true},
		{"truncated json", `{"v":1,"id":"a","type":"pi`, CodeMalformed, "", true},
		{"id of wrong type", `{"v":1,"id":7,"type":"ping","action":"observe"}`, CodeMalformed, "", true},
		{"body not an object", `{"v":1,"id":"a","type":"instruction","action":"forward","body":"go"}`, CodeBadRequest, "a", false},
		{"invalid utf-8", "{\"v\":1,\"id\":\"a\",\"type\":\"ping\",\"action\":\"observe\"}\xff", CodeMalformed, "", true},
		{"oversized line", `{"v":1,"id":"a","type":"instruction","action":"forward","body":{"text":"` + long + `"}}`, CodeTooLarge, "", true},
		{"unknown type", `{"v":1,"id":"a","type":"frobnicate","action":"forward"}`, CodeUnknownType, "a", true},
		{"server-only type", `{"v":1,"id":"a","type":"ack","action":"forward"}`, CodeUnknownType, "a", true},
		{"forbidden type", `{"v":1,"id":"a","type":"execute","action":"forward"}`, CodeUnknownType, "a", true},
		{"missing id", `{"v":1,"type":"ping","action":"observe"}`, CodeBadRequest, "", false},
		{"id with blank", `{"v":1,"id":"a b","type":"ping","action":"observe"}`, CodeBadRequest, "a b", false},
		{"id too long", `{"v":1,"id":"` + strings.Repeat("i", 129) + `","type":"ping","action":"observe"}`, CodeBadRequest, strings.Repeat("i", 129), false},
		{"missing action", `{"v":1,"id":"a","type":"ping"}`, CodeBadRequest, "a", false},
		{"action of another type", `{"v":1,"id":"a","type":"instruction","action":"observe","body":{"text":"x"}}`, CodeBadRequest, "a", false},
		{"visualize is not a request", `{"v":1,"id":"a","type":"instruction","action":"visualize","body":{"text":"x"}}`, CodeBadRequest, "a", false},
		{"empty instruction", `{"v":1,"id":"a","type":"instruction","action":"forward","body":{"text":"  "}}`, CodeBadRequest, "a", false},
		{"no body", `{"v":1,"id":"a","type":"instruction","action":"forward"}`, CodeBadRequest, "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := dialRaw(t, ts.path)
			r.send(tt.line)
			r.expectError(tt.code, tt.re)
			if tt.closes {
				r.expectClosed()
				return
			}
			r.send(`{"v":1,"id":"after","type":"ping","action":"observe"}`)
			if e := r.next(); e.Type != TypePong || e.Re != "after" {
				t.Fatalf("got %s re=%q after a refused request, want pong", e.Type, e.Re)
			}
		})
	}
	t.Cleanup(func() {
		// Run after the subtests: the server kept serving everyone else.
		c := dialTest(t, ts.path, fastClient(ts.path))
		if _, err := c.Forward(testCtx(t), "still here"); err != nil {
			t.Errorf("Forward after the bad lines: %v", err)
		}
		if n := h.totalCalls(); n != 1 {
			t.Errorf("handler called %d times, want 1: no bad line may reach it", n)
		}
	})
}

func TestOversizedLineWithoutNewline(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	r := dialRaw(t, ts.path)
	// No newline ever comes: the cap must hold while reading, not after.
	go func() { _, _ = r.nc.Write([]byte(strings.Repeat("y", 4*testMaxLine))) }()
	r.expectError(CodeTooLarge, "")
	r.expectClosed()
}

func TestOversizedLineDefaultCap(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	r := dialRaw(t, ts.path)
	go func() { _, _ = r.nc.Write([]byte(strings.Repeat("z", DefaultMaxLine+10) + "\n")) }()
	r.expectError(CodeTooLarge, "")
	r.expectClosed()
}

func TestLineAtTheCapIsAccepted(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{MaxLine: testMaxLine})
	r := dialRaw(t, ts.path)
	head := `{"v":1,"id":"cap","type":"instruction","action":"forward","body":{"text":"`
	tail := `"}}`
	r.send(head + strings.Repeat("t", testMaxLine-len(head)-len(tail)) + tail)
	if e := r.next(); e.Type != TypeAck || e.Re != "cap" {
		t.Fatalf("got %s re=%q for a line of exactly MaxLine bytes, want ack", e.Type, e.Re)
	}
}

func TestPipelinedRequestsAnsweredInOrder(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	r := dialRaw(t, ts.path)
	var batch strings.Builder
	for i := range 50 {
		fmt.Fprintf(&batch, `{"v":1,"id":"p%d","type":"instruction","action":"forward","body":{"text":"t%d"}}`+"\r\n\n", i, i)
	}
	r.send(batch.String())
	for i := range 50 {
		if e := r.next(); e.Type != TypeAck || e.Re != fmt.Sprintf("p%d", i) {
			t.Fatalf("answer %d: got %s re=%q, want ack re=p%d", i, e.Type, e.Re, i)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, id := range h.order {
		if id != fmt.Sprintf("p%d", i) {
			t.Fatalf("handled #%d = %s, want p%d: one connection's instructions keep their order", i, id, i)
		}
	}
}

func TestAbruptDisconnects(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.gate = make(chan struct{})
	h.entered = make(chan string, 1)
	ts := startServer(t, h, ServerConfig{})

	cases := []struct {
		name string
		do   func(r *rawConn)
	}{
		{"half a line", func(r *rawConn) { _, _ = r.nc.Write([]byte(`{"v":1,"id":"half","type":"ins`)) }},
		{"request then gone", func(r *rawConn) {
			r.send(`{"v":1,"id":"gone","type":"instruction","action":"forward","body":{"text":"x"}}`)
			<-h.entered // the handler has it; now vanish
		}},
		{"observe then gone", func(r *rawConn) {
			r.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
			_ = r.next()
		}},
		{"nothing at all", func(*rawConn) {}},
	}
	for _, tc := range cases {
		r := dialRaw(t, ts.path)
		tc.do(r)
		_ = r.nc.Close()
	}
	// A hello-less connection, closed before the server even looks.
	if nc, err := net.Dial("unix", ts.path); err == nil {
		_ = nc.Close()
	}
	close(h.gate) // the orphaned instruction completes; its ack has nowhere to go
	for range 50 {
		if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: "to nobody"}}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "connections to be cleaned up", func() bool { return ts.Stats().Conns == 0 })

	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Forward(testCtx(t), "after the crashes"); err != nil {
		t.Fatalf("Forward: %v", err)
	}
	if got := h.uniqueInstructions(); got != 2 {
		t.Errorf("handled %d instructions, want 2 (the orphan and the last)", got)
	}
}

func TestPeerOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	t.Parallel()
	h := newFakeHandler()
	// A socket anyone may reach, so that only the uid check stands in the
	// way; Listen's private folder is checked separately below.
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "open.sock")
	ul, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(h, ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), ul) }()
	t.Cleanup(func() { _ = s.Close(); <-done })

	bin := copyTestBinary(t)
	// A Client is told why at once: no wait until its time runs out.
	if out := runAsNobodyMode(t, bin, "client", path); !strings.Contains(out, "client code=forbidden_peer quick=true") {
		t.Errorf("client of uid 65534 saw %q, want forbidden_peer at once", out)
	}
	out := runAsNobody(t, bin, path)
	if !strings.Contains(out, `"code":"forbidden_peer"`) || !strings.Contains(out, "then-closed") {
		t.Errorf("child of uid 65534 saw %q, want a forbidden_peer error and a closed connection", out)
	}
	waitFor(t, "the refused connection to go", func() bool { return s.Stats().Conns == 0 })
	if n := h.totalCalls(); n != 0 {
		t.Errorf("handler called %d times by another user, want 0", n)
	}

	// The server keeps serving its own user.
	c := dialTest(t, path, fastClient(path))
	if _, err := c.Forward(testCtx(t), "mine"); err != nil {
		t.Errorf("Forward from our own uid: %v", err)
	}

	// With Listen's layout the other user does not even reach the socket.
	root := shortDir(t)
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if out := runAsNobody(t, bin, l.Addr().String()); !strings.Contains(out, "dial-error eacces=true") {
		t.Errorf("child of uid 65534 on the private socket saw %q, want permission denied", out)
	}
	if out := runAsNobodyMode(t, bin, "client", l.Addr().String()); !strings.Contains(out, "client code=forbidden_folder quick=true") {
		t.Errorf("client of uid 65534 on the private socket saw %q, want forbidden_folder at once", out)
	}
}

// copyTestBinary copies the running test binary where another user can
// execute it (the go build cache is private to us).
func copyTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "relay.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// runAsNobody runs the test binary as uid/gid 65534 in child mode against
// the socket at path, and returns what it printed.
func runAsNobody(t *testing.T, bin, path string) string {
	t.Helper()
	return runAsNobodyMode(t, bin, "dial", path)
}

// runAsNobodyMode is runAsNobody with the child's mode ("dial", "client").
func runAsNobodyMode(t *testing.T, bin, mode, path string) string {
	t.Helper()
	cmd := exec.CommandContext(testCtx(t), bin)
	cmd.Env = []string{childEnv + "=" + mode, childSocketEnv + "=" + path}
	cmd.Dir = "/"
	cmd.SysProcAttr = nobodyAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

// nobodyAttr makes a child process run as uid and gid 65534.
func nobodyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}
