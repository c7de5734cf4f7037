package relay

import (
	"testing"
)

// TestOperateRefusedOnObservingConnections: the observer relay's rule
// for forwarded commands. A client that observes (a window) cannot send
// one, and the server refuses one on a connection that observes, with
// the handler never called; the same request on a connection of its own
// (the CLI's) is carried out.
func TestOperateRefusedOnObservingConnections(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	window := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := window.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	before := ts.l.read.Load()
	op := Operation{Kind: OperateTakeover, TaskID: "T", RunID: "R"}
	if _, err := window.Operate(testCtx(t), op); CodeOf(err) != CodeObserving {
		t.Fatalf("Operate on an observing client = %v, want %s", err, CodeObserving)
	}
	if got := ts.l.read.Load() - before; got != 0 {
		t.Errorf("server read %d bytes after a refused operate, want 0", got)
	}

	r := dialRaw(t, ts.path)
	r.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
	if e := r.next(); e.Type != TypeReply {
		t.Fatalf("observe answered %s", e.Type)
	}
	r.send(`{"v":1,"id":"t1","type":"operate","action":"forward","body":{"kind":"takeover","task_id":"T"}}`)
	for {
		e := r.next()
		if e.Type == TypeNotice {
			continue
		}
		var body Error
		_ = e.DecodeBody(&body)
		if e.Type != TypeError || body.Code != CodeObserving || e.Re != "t1" {
			t.Fatalf("operate on an observing connection: got %s re=%q code=%q", e.Type, e.Re, body.Code)
		}
		break
	}
	if n := ts.h.totalCalls(); n != 0 {
		t.Fatalf("handler called %d times, want 0", n)
	}

	cli := dialTest(t, ts.path, fastClient(ts.path))
	out, err := cli.Operate(testCtx(t), op)
	if err != nil || out.Output != "takeover T\n" || out.Duplicate {
		t.Fatalf("Operate from the CLI = %+v, %v", out, err)
	}
}

// TestOperateAnsweredOncePerID: a resend of an operate id on another
// connection gets the first outcome, marked a duplicate; kinds are a
// closed set; an operate action other than forward is the guard's.
func TestOperateAnsweredOncePerID(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	line := `{"v":1,"id":"same","type":"operate","action":"forward","body":{"kind":"handoff_create"}}`
	first := dialRaw(t, ts.path)
	first.send(line)
	a := first.next()
	second := dialRaw(t, ts.path)
	second.send(line)
	b := second.next()
	var oa, ob Outcome
	if a.Type != TypeOutcome || b.Type != TypeOutcome || a.DecodeBody(&oa) != nil || b.DecodeBody(&ob) != nil {
		t.Fatalf("answers %s %s", a.Type, b.Type)
	}
	if oa.Duplicate || !ob.Duplicate || oa.Output != ob.Output || oa.EventID != ob.EventID {
		t.Fatalf("first %+v, resend %+v: want the same outcome, the resend a duplicate", oa, ob)
	}
	second.send(`{"v":1,"id":"k","type":"operate","action":"forward","body":{"kind":"execute"}}`)
	second.expectError(CodeBadRequest, "k")
	second.send(`{"v":1,"id":"x","type":"operate","action":"takeover","body":{"kind":"takeover"}}`)
	second.expectError(CodeForbiddenAction, "x")
	second.send(`{"v":1,"id":"y","type":"operate","action":"observe","body":{"kind":"takeover"}}`)
	second.expectError(CodeBadRequest, "y")
}

// TestOperateNeedsAnOperator: a handler that carries out no commands
// answers unknown_type, as for any type it does not know.
func TestOperateNeedsAnOperator(t *testing.T) {
	t.Parallel()
	path := startServerWith(t, struct{ Handler }{newFakeHandler()})
	c := dialTest(t, path, fastClient(path))
	if _, err := c.Operate(testCtx(t), Operation{Kind: OperateHandoffApply}); CodeOf(err) != CodeUnknownType {
		t.Fatalf("Operate = %v, want %s", err, CodeUnknownType)
	}
}
