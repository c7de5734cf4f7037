package remote_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/relay"
)

// ledgerHandler stands in for the controller: it keeps every instruction
// once, by id, as the controller's durable append does.
type ledgerHandler struct {
	mu    sync.Mutex
	seen  map[string]relay.Ack
	texts []string
}

func (h *ledgerHandler) HandleInstruction(_ context.Context, req relay.Request, in relay.Instruction) (relay.Ack, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a, ok := h.seen[req.ID]; ok {
		a.Duplicate = true
		return a, nil
	}
	if req.Via != "hub" {
		return relay.Ack{}, fmt.Errorf("request came via %q", req.Via)
	}
	h.texts = append(h.texts, in.Text)
	a := relay.Ack{Route: relay.Route{TaskID: fmt.Sprintf("task-%d", len(h.texts)), NextAction: "dispatch"}, EventID: "ev-" + req.ID}
	h.seen[req.ID] = a
	return a, nil
}

func (h *ledgerHandler) HandleControl(_ context.Context, req relay.Request, c relay.Control) (relay.Ack, error) {
	if c.TaskID == "" {
		return relay.Ack{}, &relay.Error{Code: "unknown_run"}
	}
	return relay.Ack{Route: relay.Route{TaskID: c.TaskID, NextAction: string(c.Kind)}}, nil
}

func (h *ledgerHandler) HandleObserve(context.Context, relay.Request) (relay.Status, error) {
	return relay.Status{}, errors.New("a remote person never observes")
}

func (h *ledgerHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.texts)
}

type bench struct {
	conn  *hubconn.Conn
	names naming.Root
	h     *ledgerHandler
	srv   *relay.Server
}

func newBench(t *testing.T) *bench {
	t.Helper()
	hb, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hb.Shutdown(context.Background()) })
	conn, err := hubconn.Dial(hubconn.Options{URL: hb.ClientURL(), Credentials: hb.CredentialsFile(), Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	names, _ := naming.ForRoot("team-a")
	h := &ledgerHandler{seen: map[string]relay.Ack{}}
	srv, err := relay.NewServer(h, relay.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &bench{conn: conn, names: names, h: h, srv: srv}
}

// lead serves the root's remote requests until the returned stop is called.
func (b *bench) lead(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := remote.Lead(ctx, b.conn.JS, b.names)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- l.Serve(ctx, func(ctx context.Context, env relay.Envelope) relay.Envelope {
			return b.srv.AnswerRemote(ctx, env, "hub")
		})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// An instruction sent through the hub is acknowledged by the leader's
// handler, and a control request's refusal comes back as the relay's
// error, code and all.
func TestInstructionThroughTheHubIsAcknowledgedByTheLeader(t *testing.T) {
	b := newBench(t)
	b.lead(t)
	c := remote.NewClient(b.conn.JS, b.names)
	ack, err := c.Forward(within(t, 10*time.Second), "fix the parser")
	if err != nil {
		t.Fatal(err)
	}
	if ack.TaskID != "task-1" || ack.Duplicate {
		t.Fatalf("ack = %+v", ack)
	}
	if _, err := c.Control(within(t, 10*time.Second), relay.Control{Kind: relay.ControlCancel}); err == nil {
		t.Fatal("a control request the leader refused was acknowledged")
	} else if re := (*relay.Error)(nil); !errors.As(err, &re) || re.Code != "unknown_run" {
		t.Fatalf("refusal = %v, want the leader's unknown_run", err)
	}
	ack, err = c.Control(within(t, 10*time.Second), relay.Control{Kind: relay.ControlCancel, TaskID: "task-1"})
	if err != nil || ack.NextAction != "cancel" {
		t.Fatalf("cancel: %+v %v", ack, err)
	}
}

// A request sent while no leader runs is held by the hub: the sender is
// told so, the next leader answers it once, and the same id sent again
// reads that answer instead of a second instruction.
func TestRequestWaitsOnTheHubForTheNextLeader(t *testing.T) {
	b := newBench(t)
	stop := b.lead(t) // creates the stream, as a first leader does
	stop()
	env, err := relay.PrepareRequest(must(relay.ForwardEnvelope("while nobody leads")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Send(within(t, 300*time.Millisecond), b.conn.JS, b.names, env); !errors.Is(err, remote.ErrUnanswered) {
		t.Fatalf("send without a leader: %v, want ErrUnanswered", err)
	}
	b.lead(t)
	for _, try := range []string{"first answer", "resent id"} {
		reply, err := remote.Send(within(t, 10*time.Second), b.conn.JS, b.names, env)
		if err != nil {
			t.Fatalf("%s: %v", try, err)
		}
		ack, err := relay.DecodeAck(reply)
		if err != nil || ack.TaskID != "task-1" {
			t.Fatalf("%s: %+v %v", try, ack, err)
		}
	}
	if n := b.h.count(); n != 1 {
		t.Fatalf("the handler kept %d instructions, want 1", n)
	}
}

// A root no leader ever served is named as such, not waited on.
func TestUnknownRootIsRefusedAtOnce(t *testing.T) {
	b := newBench(t)
	c := remote.NewClient(b.conn.JS, b.names)
	if _, err := c.Forward(within(t, 10*time.Second), "hello"); !errors.Is(err, remote.ErrNoLeader) {
		t.Fatalf("forward to an unserved root: %v, want ErrNoLeader", err)
	}
}

// Observing and ledger operations never travel through the hub.
func TestObserveAndOperateAreRefusedRemotely(t *testing.T) {
	b := newBench(t)
	b.lead(t)
	for _, env := range []relay.Envelope{
		{Type: relay.TypeObserve, Action: relay.ActionObserve},
		{Type: relay.TypeOperate, Action: relay.ActionForward},
	} {
		env, err := relay.PrepareRequest(env)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := remote.Send(within(t, 10*time.Second), b.conn.JS, b.names, env)
		if err != nil {
			t.Fatal(err)
		}
		re := (*relay.Error)(nil)
		if err := relay.AnswerError(reply); !errors.As(err, &re) || re.Code != relay.CodeForbiddenAction {
			t.Fatalf("%s through the hub: %v, want forbidden_action", env.Type, err)
		}
	}
}

func must(env relay.Envelope, err error) relay.Envelope {
	if err != nil {
		panic(err)
	}
	return env
}
