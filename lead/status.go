package lead

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/daokit/daokit/outbox"
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
	// RateWait is the wait the outbox's issue tracker (GitHub) imposes
	// on the Lead now, nil when none.
	RateWait *outbox.RateWait `json:"rate_wait,omitempty"`
	Time     time.Time        `json:"time"`
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
	if rw, ok := l.ob.(interface{ RateWait() outbox.RateWait }); ok {
		if w := rw.RateWait(); !w.Until.IsZero() {
			s.RateWait = &w
		}
	}
	for id := range l.running {
		s.Running = append(s.Running, id)
	}
	slices.Sort(s.Running)
	if s.Running == nil {
		s.Running = []int64{}
	}
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
