package relay

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// forbiddenActions are actions only the controller may perform.
var forbiddenActions = []string{"execute", "route", "takeover", "release", "take over", "dispatch", " Execute ", "Forward", "FORWARD"}

func TestGuard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		action string
		want   error // nil, ErrBlankAction, or a *ForbiddenActionError
	}{
		{"forward", nil},
		{"observe", nil},
		{"visualize", nil},
		{"  forward\t", nil},
		{"", ErrBlankAction},
		{" \t\n", ErrBlankAction},
		{"execute", &ForbiddenActionError{Action: "execute"}},
		{"route", &ForbiddenActionError{Action: "route"}},
		{"takeover", &ForbiddenActionError{Action: "takeover"}},
		{"release", &ForbiddenActionError{Action: "release"}},
		{" take over ", &ForbiddenActionError{Action: "take over"}},
		{"Forward", &ForbiddenActionError{Action: "Forward"}},
		{"forward,execute", &ForbiddenActionError{Action: "forward,execute"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.action), func(t *testing.T) {
			t.Parallel()
			got := Guard(tt.action)
			if tt.want == nil || errors.Is(tt.want, ErrBlankAction) {
				if !errors.Is(got, tt.want) && got != tt.want {
					t.Fatalf("Guard(%q) = %v, want %v", tt.action, got, tt.want)
				}
				return
			}
			var fa *ForbiddenActionError
			if !errors.As(got, &fa) || fa.Action != tt.want.(*ForbiddenActionError).Action {
				t.Fatalf("Guard(%q) = %#v, want %#v", tt.action, got, tt.want)
			}
		})
	}
}

func TestForbiddenActionText(t *testing.T) {
	t.Parallel()
	// The Python DAOKit's words, so that logs of both tools match.
	want := "relay mode blocks execution action 'execute'; allowed relay actions: forward, observe, visualize"
	if got := Guard(" execute ").Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := ErrBlankAction.Error(), "action must be a non-empty string"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestClientHasNoForbiddenVerbs proves the window cannot even express a
// forbidden action: the Client's methods are exactly these, and the only
// one taking an action string is Send, which the next test shows refuses.
// Operate is the CLI's forward of a person's command, refused on a client
// that observes (TestOperateRefusedOnObservingConnections).
func TestClientHasNoForbiddenVerbs(t *testing.T) {
	t.Parallel()
	want := []string{"Close", "Control", "FollowUp", "Forward", "Notices", "Observe", "Operate", "Ping", "Send", "State", "States"}
	typ := reflect.TypeFor[*Client]()
	var got []string
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		got = append(got, m.Name)
		for _, verb := range []string{"exec", "route", "takeover", "release", "dispatch"} {
			if strings.Contains(strings.ToLower(m.Name), verb) {
				t.Errorf("Client has method %s", m.Name)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Client methods = %v, want %v (a new method must keep to forward/observe)", got, want)
	}
}

func TestForbiddenActionsRefusedByClient(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	before := ts.l.read.Load()
	for _, typ := range []Type{TypeInstruction, TypeControl, TypeObserve, TypePing, "execute", "takeover"} {
		for _, action := range forbiddenActions {
			env := Envelope{Type: typ, Action: action, Body: []byte(`{"text":"x","kind":"cancel"}`)}
			_, err := c.Send(testCtx(t), env)
			var fa *ForbiddenActionError
			if !errors.As(err, &fa) || fa.Action != strings.TrimSpace(action) {
				t.Errorf("Send(type %s, action %q) = %v, want *ForbiddenActionError", typ, action, err)
			}
			if CodeOf(err) != CodeForbiddenAction {
				t.Errorf("CodeOf = %q, want %q", CodeOf(err), CodeForbiddenAction)
			}
		}
	}
	if got := ts.l.read.Load() - before; got != 0 {
		t.Errorf("server read %d bytes after refused sends, want 0", got)
	}
	if n := ts.h.totalCalls(); n != 0 {
		t.Errorf("handler called %d times, want 0", n)
	}
}

func TestForbiddenActionsRefusedByServer(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	r := dialRaw(t, ts.path)
	for i, action := range forbiddenActions {
		for _, typ := range []Type{TypeInstruction, TypeControl, TypeObserve, TypePing} {
			id := fmt.Sprintf("f%d-%s", i, typ)
			r.send(fmt.Sprintf(`{"v":1,"id":%q,"type":%q,"action":%q,"body":{"text":"x","kind":"cancel"}}`, id, typ, action))
			r.expectError(CodeForbiddenAction, id)
		}
	}
	// The connection stays usable: a refusal is not a protocol break.
	r.send(`{"v":1,"id":"p","type":"ping","action":"observe"}`)
	if e := r.next(); e.Type != TypePong || e.Re != "p" {
		t.Fatalf("got %s re=%q, want pong re=p", e.Type, e.Re)
	}
	if n := ts.h.totalCalls(); n != 0 {
		t.Errorf("handler called %d times, want 0", n)
	}
}

func TestControlKindsAreClosed(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	c := dialTest(t, ts.path, fastClient(ts.path))
	for _, kind := range []ControlKind{"takeover", "execute", "release", "route", ""} {
		if _, err := c.Control(testCtx(t), Control{Kind: kind}); CodeOf(err) != CodeBadRequest {
			t.Errorf("Control(%q) = %v, want bad_request", kind, err)
		}
	}
	r := dialRaw(t, ts.path)
	r.send(`{"v":1,"id":"k","type":"control","action":"forward","body":{"kind":"takeover"}}`)
	r.expectError(CodeBadRequest, "k")
	for _, kind := range []ControlKind{ControlCancel, ControlRetry, ControlStatus, ControlAccept, ControlReject} {
		a, err := c.Control(testCtx(t), Control{Kind: kind, TaskID: "T", RunID: "R"})
		if err != nil || a.NextAction != string(kind) {
			t.Errorf("Control(%q) = %+v, %v; want the controller's ack", kind, a, err)
		}
	}
	if n := ts.h.totalCalls(); n != 5 {
		t.Errorf("handler called %d times, want 5 (the valid kinds only)", n)
	}
}
