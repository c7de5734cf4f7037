package lead

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"
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
	Time    time.Time      `json:"time"`
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
func (l *Lead) Snapshot(ctx context.Context) Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Status{Role: l.o.Role, PID: os.Getpid(), Cursor: l.cursor, Limit: l.limit,
		Queued: append([]int64{}, l.queued...), Blocked: map[string][]int64{}, Guarded: len(l.o.Guard) > 0, GroupFull: l.capped && len(l.queued) > 0, Memory: slices.Clone(l.memoryFiles), Time: now()}
	for id := range l.running {
		s.Running = append(s.Running, id)
	}
	slices.Sort(s.Running)
	if s.Running == nil {
		s.Running = []int64{}
	}
	at := time.Now()
	for id, w := range l.running {
		s.Workers = append(s.Workers, WorkerStatus{Issue: id, Attempt: w.attempt, PID: w.proc.PID(), Health: w.health,
			SilentMS: at.Sub(w.proc.LastActivity()).Milliseconds(), Restarts: len(l.restarts[id]), Logs: w.dir,
			Worktree: w.tree, Started: w.started.UTC()})
	}
	for id, r := range l.pending {
		s.Workers = append(s.Workers, WorkerStatus{Issue: id, Attempt: r.attempt, Health: HealthStale, Restarts: len(l.restarts[id]),
			RestartAt: r.at.UTC(), Logs: AttemptDir(l.logRoot, l.o.Role, id, r.attempt)})
	}
	slices.SortFunc(s.Workers, func(a, b WorkerStatus) int { return int(a.Issue - b.Issue) })
	for id, deps := range l.blocked {
		s.Blocked["#"+itoa(id)] = deps
	}
	return s
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// writeStatus publishes the Status when a status dir is set: a temp
// file renamed over the old one, so a reader sees one or the other. It is
// not synced: after an OS crash the next pass writes it again, and a
// heartbeat is worth nothing older anyway (idle Leads write it every
// pass, so this keeps their cost down).
func (l *Lead) writeStatus(ctx context.Context) {
	if l.o.StatusDir == "" {
		return
	}
	data, err := json.MarshalIndent(l.Snapshot(ctx), "", "  ")
	if err != nil {
		return
	}
	path := StatusPath(l.o.StatusDir, l.o.Role)
	if err := ensureDir(l.o.StatusDir); err != nil {
		return
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err == nil {
		_ = os.Rename(tmp, path)
	}
}
