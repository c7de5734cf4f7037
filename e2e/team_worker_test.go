package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A Lead's Worker that stops speaking is shown WARNING by daokit status,
// then judged STALE, stopped and started again: a second attempt with
// logs of its own, which daokit logs reads; status --json carries the
// Workers of each role.
func TestTeamHungWorkerIsRestarted(t *testing.T) {
	root := teamRoot(t)
	c := startController(t, root)
	defer c.stop()
	waitEvent(t, root, "backend Lead started", 20*time.Second, leadEvent("LEAD_STARTED", "backend"))
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "--body", "Sim: hang 10m", "Stuck", "job"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	waitFor(t, 30*time.Second, "status shows the Worker WARNING", func() bool {
		return strings.Contains(run(t, "status", "--root", root).stdout, "backend #1 (attempt 1): its Worker is WARNING")
	})
	waitFor(t, 30*time.Second, "a second attempt", func() bool {
		r := run(t, "logs", "--root", root, "--role", "backend", "--issue", "1", "--attempt", "2")
		return r.code == 0 && strings.Contains(r.stdout, "working on #1: Stuck job")
	})
	var st struct {
		Roles []struct {
			Role    string `json:"role"`
			Workers []struct {
				Issue    int64  `json:"issue"`
				Attempt  int    `json:"attempt"`
				Health   string `json:"health"`
				Restarts int    `json:"restarts"`
				Logs     string `json:"logs"`
			} `json:"workers"`
		} `json:"roles"`
	}
	waitFor(t, 30*time.Second, "status --json lists the restarted Worker", func() bool {
		r := run(t, "status", "--root", root, "--json")
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		for _, role := range st.Roles {
			for _, w := range role.Workers {
				if role.Role == "backend" && w.Issue == 1 && w.Attempt >= 2 && w.Restarts >= 1 && strings.Contains(w.Logs, "/workers/backend/1/") {
					return true
				}
			}
		}
		return false
	})
}
