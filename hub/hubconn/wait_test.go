package hubconn_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/nats-io/nats.go"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// A hub that is down when a client starts is waited for: the client is
// told once why it waits, and connects as soon as the hub listens.
func TestDialWaitsForAHubThatStartsLater(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	// The key the hub will generate at its first start is made now, so
	// that the client can name it before the hub exists.
	first, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	creds := first.CredentialsFile()
	first.Shutdown(context.Background())

	waited := make(chan error, 2)
	dialed := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		c, err := hubconn.DialWait(ctx, hubconn.Options{URL: "nats://" + addr, Credentials: creds, Timeout: time.Second},
			func(err error) { waited <- err })
		if err == nil {
			c.Close()
		}
		dialed <- err
	}()
	select {
	case err := <-waited:
		if !hubconn.Unreachable(err) {
			t.Fatalf("told %v, want an unreachable hub", err)
		}
	case err := <-dialed:
		t.Fatalf("dial ended (%v) with no hub listening", err)
	}
	h, err := hub.Start(hub.Options{Listen: addr, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background())
	if err := <-dialed; err != nil {
		t.Fatalf("dial after the hub started: %v", err)
	}
	if len(waited) != 0 {
		t.Error("the wait was announced more than once")
	}
}

// The wait ends with the context, naming both the context's end and
// why the hub was not reached.
func TestDialWaitEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := hubconn.DialWait(ctx, hubconn.Options{URL: "nats://" + freeAddr(t)}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !hubconn.Unreachable(err) {
		t.Fatalf("got %v", err)
	}
}

// A hub that answers but refuses the key is not waited for.
func TestDialWaitDoesNotWaitForARefusal(t *testing.T) {
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background())
	other := filepath.Join(t.TempDir(), "other.nk")
	// A valid seed the hub does not know: another hub's admin key.
	o, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: filepath.Dir(other)})
	if err != nil {
		t.Fatal(err)
	}
	seed := o.CredentialsFile()
	o.Shutdown(context.Background())
	if _, err := os.Stat(seed); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waited := false
	_, err = hubconn.DialWait(ctx, hubconn.Options{URL: h.ClientURL(), Credentials: seed}, func(error) { waited = true })
	if err == nil || waited || hubconn.Unreachable(err) || ctx.Err() != nil {
		t.Fatalf("a refused key: err %v, waited %v", err, waited)
	}
}

// What is waited for and what is not, by the errors a dial returns.
func TestUnreachable(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nats.ErrNoServers, true},
		{fmt.Errorf("hub nats://h:4222: %w", nats.ErrTimeout), true},
		{errors.New("nats: EOF"), true},
		{errors.New("read tcp 10.0.0.1:5->10.0.0.2:4222: connection reset by peer"), true},
		{nats.ErrAuthorization, false},
		{fmt.Errorf("hub: %w", nats.ErrPermissionViolation), false},
		{errors.New("dial tcp: lookup hub.example: no such host"), false},
		{errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), false},
		{nil, false},
	} {
		if got := hubconn.Unreachable(tt.err); got != tt.want {
			t.Errorf("Unreachable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
