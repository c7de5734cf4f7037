package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/ledger/ledgertest"
)

// The Python dashboard's read endpoints answer with the ledger's
// documents and newest events, behind the token; its POST /api/message
// forwards through the relay (a read-only dashboard refuses it).
func TestPythonAPI(t *testing.T) {
	rec := &recorder{}
	base, root := serve(t, Options{Relay: rec})
	now := time.Now()
	for _, task := range []string{"T-A", "T-B", "T-A"} {
		line, _ := ledger.MarshalLine(ledger.NewEvent(now, task, "R-1", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("task", task)))
		ledgertest.AppendEvents(t, root, line)
	}
	getJSON := func(path string, into any) int {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if into != nil && resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return resp.StatusCode
	}
	var state map[string]any
	if code := getJSON("/api/state?token=secret-token", &state); code != http.StatusOK || state["status"] != "PLANNING" || state["schema_version"] != "1.0.0" {
		t.Errorf("/api/state: %d %v", code, state)
	}
	var hb, leases map[string]any
	if code := getJSON("/api/heartbeat?token=secret-token", &hb); code != http.StatusOK || hb["status"] != "IDLE" {
		t.Errorf("/api/heartbeat: %d %v", code, hb)
	}
	if code := getJSON("/api/leases?token=secret-token", &leases); code != http.StatusOK || leases["leases"] == nil {
		t.Errorf("/api/leases: %d %v", code, leases)
	}
	for path, want := range map[string]int{"/api/state": 403, "/api/events": 403, "/api/nothing?token=secret-token": 404, "/api/events?token=secret-token&limit=x": 400} {
		if code := getJSON(path, nil); code != want {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
	var events []map[string]any
	if code := getJSON("/api/events?token=secret-token&limit=2", &events); code != http.StatusOK || len(events) != 2 || events[0]["task_id"] != "T-B" || events[1]["task_id"] != "T-A" {
		t.Errorf("/api/events?limit=2: %d %v", code, events)
	}
	if code := getJSON("/api/events?token=secret-token&task_id=T-A", &events); code != http.StatusOK || len(events) != 2 || events[0]["task_id"] != "T-A" {
		t.Errorf("/api/events?task_id=T-A: %d %v", code, events)
	}
	resp, err := http.Post(base+"/api/message?token=secret-token", "application/json", strings.NewReader(`{"message": " hello from a script "}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(rec.got) != 1 || rec.got[0] != "hello from a script" {
		t.Errorf("POST /api/message: %s, relay got %q", resp.Status, rec.got)
	}

	ro, _ := serve(t, Options{Relay: rec, ReadOnly: true})
	resp, err = http.Post(ro+"/api/message?token=secret-token", "application/json", strings.NewReader(`{"message":"no"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(rec.got) != 1 {
		t.Errorf("POST /api/message read-only: %s, relay got %q", resp.Status, rec.got)
	}
}
