package relay

import (
	"context"
	"errors"
	"testing"
)

// TestNoGoroutineOutlivesClose runs a busy session (observers, notices,
// dropped connections, a request cut off by Close, a server shut down under
// a blocked handler) and checks that closing everything leaves no relay
// goroutine behind. It is not parallel: it counts every goroutine.
func TestNoGoroutineOutlivesClose(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	var clients []*Client
	for range 3 {
		c := dialTest(t, ts.path, fastClient(ts.path))
		if _, err := c.Observe(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	for i := range 200 {
		_ = ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: "x"}})
		if i == 100 {
			ts.l.dropAll()
		}
	}
	if _, err := clients[0].Forward(testCtx(t), "before the end"); err != nil {
		t.Fatal(err)
	}

	// A request blocked in the handler while everything shuts down.
	h.gate = make(chan struct{})
	h.entered = make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		_, err := clients[1].Forward(context.Background(), "cut off")
		errc <- err
	}()
	<-h.entered
	_ = ts.Close() // the handler sees its context end
	_ = clients[1].Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("Forward cut off by Close = %v, want ErrClosed", err)
	}
	for _, c := range clients {
		_ = c.Close()
	}
	checkNoRelayGoroutines(t)
}
