package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// relayFacts is what the tests read of state/relay_context.json.
type relayFacts struct {
	Constraints     []string `json:"constraints"`
	CurrentBlockers []string `json:"current_blockers"`
	UpdatedAt       string   `json:"updated_at"`
}

// waitContext polls the window's saved relay context until ok says it is
// what the test waits for, and returns its relay_context.
func waitContext(t *testing.T, path string, within time.Duration, what string, ok func(map[string]json.RawMessage, relayFacts) bool) map[string]json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(within)
	var last []byte
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			last = data
			var doc struct {
				Relay map[string]json.RawMessage `json:"relay_context"`
			}
			var f struct {
				Relay relayFacts `json:"relay_context"`
			}
			if json.Unmarshal(data, &doc) == nil && json.Unmarshal(data, &f) == nil && ok(doc.Relay, f.Relay) {
				return doc.Relay
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay_context.json never held %s within %v; last:\n%s", what, within, last)
		}
		time.Sleep(100 * time.Millisecond) // polling a file the window writes; the condition decides
	}
}

// waitLog polls the window's log until it has a line with text.
func waitLog(t *testing.T, path string, within time.Duration, text string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window's log never said %q within %v", text, within)
		}
		time.Sleep(100 * time.Millisecond) // polling a file the window writes; the condition decides
	}
}

// TestWindowKeepsTheFiveFacts: a /constraint typed in the window reaches
// relay_context.json and is still there after the compaction the next
// instruction starts; while the run is blocked the saved context says
// BLOCKED; removing the blockers field by hand makes the status bar mark
// it; `daokit send --constraint` adds one through the ledger.
func TestWindowKeepsTheFiveFacts(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(simConfig("1s"), "max_restarts = 20", "max_restarts = 1", 1)
	cfg = strings.Replace(cfg, `"--duration", "1s", "--lines", "6"`, `"--hang-after", "1"`, 1)
	root := newRoot(t, cfg)
	t.Cleanup(func() { stopRootController(t, root) })
	path := filepath.Join(root, "state", "relay_context.json")
	logPath := filepath.Join(t.TempDir(), "window.log")
	win := openWindow(t, "--root", root, "--log", logPath)
	win.waitFor(30*time.Second, "Connected to the controller")

	win.typeLine("/constraint keep the API stable")
	win.waitFor(10*time.Second, "Constraint 1 kept: keep the API stable")
	// The window's heartbeat report is in the context: this instruction
	// compacts it.
	win.typeLine("hang until blocked")
	win.waitFor(60*time.Second, "is blocked")
	waitLog(t, logPath, 10*time.Second, "relay context compacted")
	waitContext(t, path, 20*time.Second, "the constraint and BLOCKED", func(_ map[string]json.RawMessage, f relayFacts) bool {
		return slices.Equal(f.Constraints, []string{"keep the API stable"}) && slices.Contains(f.CurrentBlockers, "status=BLOCKED") && f.UpdatedAt != ""
	})
	if screen := win.capture(); strings.Contains(screen, "context lacks") {
		t.Fatalf("the self-check marks a fact while all five are known:\n%s", screen)
	}

	// Remove the blockers by hand: the window reads the edit and marks it.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	var relay map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc["relay_context"], &relay); err != nil {
		t.Fatal(err)
	}
	delete(relay, "current_blockers")
	doc["relay_context"], _ = json.Marshal(relay)
	edit, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, edit, 0o600); err != nil {
		t.Fatal(err)
	}
	win.waitFor(20*time.Second, "context lacks blockers")

	// Another client's instruction brings its constraint in through the
	// ledger.
	if r := run(t, "send", "--root", root, "--constraint", "no new dependencies", "hang once more"); r.code != 0 {
		t.Fatalf("send --constraint: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	waitContext(t, path, 30*time.Second, "both constraints", func(_ map[string]json.RawMessage, f relayFacts) bool {
		return slices.Equal(f.Constraints, []string{"keep the API stable", "no new dependencies"})
	})
}
