package relay

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// A connection that sends nothing is closed after IdleTimeout with idle;
// one that dribbles a line is cut after ReadTimeout with slow; an
// observer (a window) is never idle.
func TestIdleAndSlowConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{IdleTimeout: 150 * time.Millisecond, ReadTimeout: 150 * time.Millisecond})

	idle := dialRaw(t, ts.path)
	idle.expectError(CodeIdle, "")
	idle.expectClosed()

	slow := dialRaw(t, ts.path)
	slow.send(`{"v":1,"id":"p1","type":"ping","action":"observe"}`) // a whole line resets nothing but idleness
	if e := slow.next(); e.Type != TypePong {
		t.Fatalf("got %s, want pong", e.Type)
	}
	if _, err := slow.nc.Write([]byte(`{"v":1,`)); err != nil {
		t.Fatal(err)
	}
	slow.expectError(CodeSlow, "")
	slow.expectClosed()

	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	watching := time.Now()
	for time.Since(watching) < 3*150*time.Millisecond {
		if st := c.State(); st.State != StateConnected {
			t.Fatalf("an observer was disconnected: %+v", st)
		}
		if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: "x"}}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-c.Notices():
		case <-time.After(waitTimeout):
			t.Fatal("no notice")
		}
	}
}

// At the cap a new connection displaces the oldest silent one; when all
// connections talk, it is refused with busy and counted.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxConns: 3})
	silent := dialRaw(t, ts.path)
	talkers := make([]*rawConn, 2)
	for i := range talkers {
		talkers[i] = dialRaw(t, ts.path)
		talkers[i].send(`{"v":1,"id":"p","type":"ping","action":"observe"}`)
		talkers[i].next()
	}
	// Full: the newcomer takes the silent one's place.
	newcomer := dialRaw(t, ts.path)
	silent.expectClosed()
	newcomer.send(`{"v":1,"id":"p","type":"ping","action":"observe"}`)
	if e := newcomer.next(); e.Type != TypePong {
		t.Fatalf("newcomer got %s, want pong", e.Type)
	}
	// Everyone talks: the next one is refused with a reason.
	nc, err := net.Dial("unix", ts.path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	refused := &rawConn{t: t, nc: nc, lr: newLineReader(nc, DefaultMaxLine)}
	refused.expectError(CodeBusy, "")
	refused.expectClosed()
	st := ts.Stats()
	if st.Cap != 3 || st.Refused != 1 || st.Evicted != 1 {
		t.Fatalf("stats %+v, want cap 3, 1 refused, 1 evicted", st)
	}
	for _, r := range talkers {
		r.send(`{"v":1,"id":"q","type":"ping","action":"observe"}`)
		if e := r.next(); e.Type != TypePong {
			t.Fatalf("a talking connection was hurt: %s", e.Type)
		}
	}
}

// The cap leaves FDReserve descriptors free below RLIMIT_NOFILE.
func TestConnCapKeepsAReserve(t *testing.T) {
	cfg := DefaultServerConfig()
	cfg.MaxConns, cfg.FDReserve = 1<<20, 100
	got := connCap(cfg)
	if got >= 1<<20 || got < 1 {
		t.Fatalf("connCap = %d, want the rlimit minus the reserve", got)
	}
}

// While maxWinding evicted connections are still winding down the accept
// loop waits, and the first one to finish lets it go on: a flood cannot
// pile up goroutines faster than they end.
func TestAcceptWaitsForEvictedConnectionsToWindDown(t *testing.T) {
	s, err := NewServer(newFakeHandler(), ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var winding []*conn
	s.mu.Lock()
	for i := range maxWinding {
		c := newConn(s, uint64(i), nil)
		c.evicted = true
		s.conns[c] = struct{}{}
		winding = append(winding, c)
	}
	s.mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admitted := make(chan bool, 1)
	go func() { admitted <- s.waitWinding(ctx) }()
	select {
	case <-admitted:
		t.Fatalf("accepted with %d connections winding down", maxWinding)
	case <-time.After(50 * time.Millisecond):
	}
	s.untrack(winding[0])
	select {
	case ok := <-admitted:
		if !ok {
			t.Fatal("waitWinding gave up although a connection ended")
		}
	case <-time.After(waitTimeout):
		t.Fatal("still waiting after a winding connection ended")
	}
}

// Observers that never read cannot take the slots kept for requests: at
// the observers' share an observe is refused with busy and closed, and a
// request still gets its slot and its answer.
func TestObserversLeaveSlotsForRequests(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxConns: 8, RequestReserve: 2})
	var refused int
	for i := range 8 {
		r := dialRaw(t, ts.path)
		r.send(`{"v":1,"id":"o` + string(rune('a'+i)) + `","type":"observe","action":"observe"}`)
		if e := r.next(); e.Type == TypeError {
			refused++
			r.expectClosed()
		}
		// An observer admitted never reads again.
	}
	if refused != 2 {
		t.Fatalf("%d observes refused, want the 2 beyond the observers' share of 6", refused)
	}
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Forward(testCtx(t), "a request while observers fill their share"); err != nil {
		t.Fatalf("a request found no slot: %v", err)
	}
	if st := ts.Stats(); st.Observers != 6 {
		t.Fatalf("stats %+v, want 6 observers", st)
	}
}

// An observer that does not take its notices is closed after
// NoticeDeadline, long before WriteTimeout, and its slot comes back.
func TestObserverThatDoesNotReadIsClosed(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{WriteTimeout: time.Hour, NoticeDeadline: 50 * time.Millisecond})
	r := dialRaw(t, ts.path)
	r.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
	r.next() // the status; nothing is read after it
	line := strings.Repeat("x", 32<<10)
	deadline := time.Now().Add(waitTimeout)
	for ts.Stats().Observers > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("an observer that does not read still holds its slot: %+v", ts.Stats())
		}
		if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: line}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // paces the notices; the condition decides
	}
}
