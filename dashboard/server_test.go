package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/ledger/ledgertest"
	"github.com/daokit/daokit/tui"
	"github.com/daokit/daokit/tui/live"
)

// recorder is a controller's end of the relay: it records what was
// forwarded and answers as told.
type recorder struct {
	mu   sync.Mutex
	got  []string
	fail error
}

func (r *recorder) Forward(_ context.Context, text string) (live.Ack, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return live.Ack{}, r.fail
	}
	r.got = append(r.got, text)
	return live.Ack{Route: ledger.Route{TaskID: "T-1", RunID: "R-1", NextAction: "dispatch"}, EventID: "evt_1"}, nil
}

// serve runs a dashboard of a fresh ledger root, fed by the window's
// ledger source, on a loopback port until the test ends.
func serve(t *testing.T, o Options) (base, root string) {
	t.Helper()
	root = t.TempDir()
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	feed := tui.NewLedgerSource(root, 50)
	t.Cleanup(func() { _ = feed.Close() })
	o.Feed = feed
	if o.Token == "" {
		o.Token = "secret-token"
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), root
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func post(t *testing.T, u, text string, header map[string]string) (int, sendAnswer) {
	t.Helper()
	req, err := http.NewRequest("POST", u, strings.NewReader(url.Values{"text": {text}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a sendAnswer
	_ = json.NewDecoder(resp.Body).Decode(&a)
	return resp.StatusCode, a
}

// stateFiles reads every file of root's state folder.
func stateFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "state"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(root, "state", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
	}
	return out
}

// Every route refuses a request without the token, or with a wrong one
// (even one that shares its start), with 403 and nothing of the ledger.
func TestEveryRouteNeedsTheToken(t *testing.T) {
	rec := &recorder{}
	base, _ := serve(t, Options{Relay: rec})
	for _, path := range []string{"/", "/events", "/static/app.js", "/static/style.css", "/nothing", "/api/state", "/api/heartbeat", "/api/leases", "/api/events"} {
		for _, q := range []string{"", "?token=", "?token=secret", "?token=secret-token-and-more", "?token=SECRET-TOKEN"} {
			code, body := get(t, base+path+q)
			if code != http.StatusForbidden || strings.Contains(body, "PLANNING") {
				t.Errorf("GET %s%s: %d %q, want 403", path, q, code, body)
			}
		}
	}
	for _, path := range []string{"/send", "/api/message", "/send?token=secret", "/api/message?token=x"} {
		if code, _ := post(t, base+path, "run this", nil); code != http.StatusForbidden {
			t.Errorf("POST %s without the token: %d, want 403", path, code)
		}
	}
	if len(rec.got) != 0 {
		t.Errorf("forwarded without the token: %q", rec.got)
	}
	if code, body := get(t, base+"/?token=secret-token"); code != http.StatusOK || !strings.Contains(body, "PLANNING") {
		t.Errorf("GET / with the token: %d %q", code, body)
	}
}

// A forwarded instruction goes to the relay as typed (trimmed), and the
// answer is in the page's language; an empty one, a cross-site one and a
// failed one are not acknowledged.
func TestSendForwardsThroughTheRelay(t *testing.T) {
	rec := &recorder{}
	base, root := serve(t, Options{Relay: rec, Lang: i18n.English})
	before := stateFiles(t, root)
	// The page observes and forwards: whatever it is asked, the ledger
	// is as it was (the controller, not the page, records instructions).
	defer func() {
		if after := stateFiles(t, root); !maps.EqualFunc(before, after, bytes.Equal) {
			t.Errorf("the dashboard changed the ledger")
		}
	}()
	zh := i18n.MustNew(i18n.Chinese)
	code, a := post(t, base+"/send?token=secret-token&lang=zh-CN", "  修复登录  ", nil)
	if want := zh.T("dashboard.send.forwarded", "Task", "T-1", "Run", "R-1", "Next", "dispatch"); code != http.StatusOK || !a.OK || a.Message != want {
		t.Errorf("forward: %d %+v, want 200 %q", code, a, want)
	}
	if len(rec.got) != 1 || rec.got[0] != "修复登录" {
		t.Errorf("relay got %q", rec.got)
	}
	if code, a := post(t, base+"/send?token=secret-token", "   ", nil); code != http.StatusBadRequest || a.OK {
		t.Errorf("empty: %d %+v", code, a)
	}
	if code, _ := post(t, base+"/send?token=secret-token", "x", map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("cross-site POST: %d, want 403", code)
	}
	rec.fail = &live.Error{Code: "unavailable", Err: errors.New("dial")}
	en := i18n.MustNew(i18n.English)
	code, a = post(t, base+"/send?token=secret-token", "y", nil)
	if want := en.T("dashboard.send.failed", "Reason", en.T("tui.relay.error.unavailable")); code != http.StatusBadGateway || a.OK || a.Message != want {
		t.Errorf("failed forward: %d %+v, want 502 %q", code, a, want)
	}
	if len(rec.got) != 1 {
		t.Errorf("relay got %q", rec.got)
	}
}

// A read-only dashboard has no input and refuses every POST, even with
// the token, without reaching the relay.
func TestReadOnlyRefusesPosts(t *testing.T) {
	rec := &recorder{}
	base, _ := serve(t, Options{Relay: rec, ReadOnly: true})
	_, body := get(t, base+"/?token=secret-token")
	if strings.Contains(body, `id="send"`) || strings.Contains(body, `id="text"`) || !strings.Contains(body, `id="readonly"`) {
		t.Errorf("read-only page has an input:\n%s", body)
	}
	if code, a := post(t, base+"/send?token=secret-token", "run this", nil); code != http.StatusForbidden || a.OK {
		t.Errorf("POST: %d %+v, want 403", code, a)
	}
	if len(rec.got) != 0 {
		t.Errorf("a read-only dashboard forwarded %q", rec.got)
	}
}

// sseEvent is one server-sent event as a browser assembles it.
type sseEvent struct{ id, name, data string }

// readEvents parses the stream into ch until it ends.
func readEvents(body io.Reader, ch chan<- sseEvent) {
	defer close(ch)
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<22)
	var e sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if e.name != "" {
				e.data = strings.Join(data, "\n")
				ch <- e
			}
			e, data = sseEvent{}, nil
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = append(data, line[6:])
		}
	}
}

// The stream sends the state at once, then each event appended to the
// ledger by another writer, rendered (escaped) in the page's language.
func TestStreamShowsAppendedEvents(t *testing.T) {
	base, root := serve(t, Options{ReadOnly: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events?token=secret-token&lang=zh-CN", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	ch := make(chan sseEvent, 16)
	go readEvents(resp.Body, ch)
	next := func() sseEvent {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatal("stream ended")
			}
			return e
		case <-ctx.Done():
			t.Fatal("no event within the deadline")
		}
		return sseEvent{}
	}
	first := next()
	zh := i18n.MustNew(i18n.Chinese)
	if first.name != "ledger" || !strings.Contains(first.data, zh.T("dashboard.pane.pipeline")) || !strings.Contains(first.data, "PLANNING") {
		t.Fatalf("first event %+v", first)
	}
	e := ledger.NewEvent(time.Now(), "T-9", "R-9", "S1", ledger.EventSystem, ledger.SeverityError, ledger.ObjectOf("message", "<b>marker</b>"))
	line, _ := e.MarshalJSON()
	ledgertest.AppendEvents(t, root, line)
	for {
		got := next()
		if !strings.Contains(got.data, e.EventID) {
			continue
		}
		if strings.Contains(got.data, "<b>marker</b>") || !strings.Contains(got.data, "&lt;b&gt;marker") {
			t.Errorf("payload not escaped: %s", got.data)
		}
		if !strings.Contains(got.data, "R-9") || got.id == first.id {
			t.Errorf("event %s: run or version missing: %s", got.id, got.data)
		}
		return
	}
}

// A dashboard stops cleanly when asked even while a browser holds a
// connection it opened ahead of need and never used (Chromium does), and
// while a page's stream is open.
func TestStopsWithIdleConnections(t *testing.T) {
	root := t.TempDir()
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	feed := tui.NewLedgerSource(root, 50)
	defer feed.Close()
	s, err := New(Options{Feed: feed, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	unused, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer unused.Close()
	resp, err := http.Get("http://" + ln.Addr().String() + "/events?token=tok")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, 1)
	if _, err := resp.Body.Read(first); err != nil {
		t.Fatalf("stream: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v, want nil after a requested stop", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return within 20s of its context's end")
	}
}
