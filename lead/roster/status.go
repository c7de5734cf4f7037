package roster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// Status is what a Lead publishes after every pass in
// <status dir>/<role>.json: its heartbeat for the controller and what
// the window's roles pane and daokit status show.
type Status struct {
	Role   string `json:"role"`
	PID    int    `json:"pid"`
	Cursor int64  `json:"cursor"`
	Limit  int    `json:"limit"`
	// Running, Queued (oldest first) and Blocked (issue → blockers).
	Running []int64            `json:"running"`
	Queued  []int64            `json:"queued"`
	Blocked map[string][]int64 `json:"blocked"`
	Guarded bool               `json:"guarded"`
	// GroupFull: the oldest queued issue waits because a group cap this
	// role shares with other roles is reached.
	GroupFull bool `json:"group_full,omitempty"`
	// Memory are the files of the accepted decisions the Lead gives its
	// Workers, newest first (its context from the project memory).
	Memory []string `json:"memory,omitempty"`
	// Workers are the running Workers and those waiting for a restart,
	// by issue.
	Workers []WorkerStatus `json:"workers,omitempty"`
	// RateWait is the wait the outbox's issue tracker (GitHub) imposes
	// on the Lead now, nil when none.
	RateWait *outbox.RateWait `json:"rate_wait,omitempty"`
	Time     time.Time        `json:"time"`
}

// WorkerStatus is one Worker as its Lead last saw it.
type WorkerStatus struct {
	Issue   int64 `json:"issue"`
	Attempt int   `json:"attempt"`
	PID     int   `json:"pid,omitempty"`
	// Health is HealthActive, HealthWarning or HealthStale (stopped, to
	// be started again), by its silence (SilentMS) against daokit.toml's
	// [heartbeat] bounds.
	Health   string `json:"health"`
	SilentMS int64  `json:"silent_ms"`
	// Restarts counts its restarts within the [restart] window;
	// RestartAt is when the next attempt starts while it waits for it
	// (Attempt is then the one stopped, PID 0).
	Restarts  int       `json:"restarts,omitempty"`
	RestartAt time.Time `json:"restart_at,omitzero"`
	// Logs is the attempt's folder (stdout.log, stderr.log; read with
	// daokit logs --role R --issue N); Worktree its git worktree ("": the
	// role's folder).
	Logs     string    `json:"logs,omitempty"`
	Worktree string    `json:"worktree,omitempty"`
	Started  time.Time `json:"started,omitzero"`
}

// StatusPath is where role's Lead publishes its Status.
func StatusPath(dir, role string) string { return filepath.Join(dir, role+".json") }

// ReadStatus reads a Lead's Status.
func ReadStatus(dir, role string) (Status, error) {
	var s Status
	data, err := os.ReadFile(StatusPath(dir, role))
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(data, &s)
	return s, err
}

// Snapshot is the Lead's current Status.

// StatusDir is where the Leads of w publish their Status: beside the
// outbox database.
func StatusDir(w *team.Workflow) string { return filepath.Join(filepath.Dir(w.DBPath()), "leads") }
