package lead

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

func (l *Lead) Snapshot(ctx context.Context) roster.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := roster.Status{Role: l.o.Role, PID: os.Getpid(), Cursor: l.cursor, Limit: l.limit,
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
	at := time.Now()
	for id, w := range l.running {
		s.Workers = append(s.Workers, roster.WorkerStatus{Issue: id, Attempt: w.attempt, PID: w.proc.PID(), Health: w.health,
			SilentMS: at.Sub(w.proc.LastActivity()).Milliseconds(), Restarts: len(l.restarts[id]), Logs: w.dir,
			Worktree: w.tree, Started: w.started.UTC()})
	}
	for id, r := range l.pending {
		s.Workers = append(s.Workers, roster.WorkerStatus{Issue: id, Attempt: r.attempt, Health: roster.HealthStale, Restarts: len(l.restarts[id]),
			RestartAt: r.at.UTC(), Logs: roster.AttemptDir(l.logRoot, l.o.Role, id, r.attempt)})
	}
	slices.SortFunc(s.Workers, func(a, b roster.WorkerStatus) int { return int(a.Issue - b.Issue) })
	for id, deps := range l.blocked {
		s.Blocked["#"+itoa(id)] = deps
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// writeStatus publishes the roster.Status when a status dir is set: a temp
// file renamed over the old one, so a reader sees one or the other. It is
// not synced: after an OS crash the next pass writes it again, and a
// heartbeat is worth nothing older anyway (idle Leads write it every
// pass, so this keeps their cost down).
func (l *Lead) writeStatus(ctx context.Context) {
	if l.o.StatusDir == "" {
		return
	}
	s := l.Snapshot(ctx)
	at, cursor := s.Time, s.Cursor
	// The cursor moves with every event read: it is said at the next
	// beat, not for every event (the outbox's copy is behind anyway, see
	// Lead.flushCursor). The snapshot is compared as it is, not encoded
	// a second time for it, and only within a beat: an idle Lead wakes
	// once a beat and then writes its status anyway.
	s.Time, s.Cursor = time.Time{}, 0
	if l.statusSaid != nil && at.Sub(l.statusAt) < l.o.Beat && reflect.DeepEqual(s, *l.statusSaid) {
		// Nothing new, and the last beat is recent: a Lead answering a
		// burst of events writes its status once a beat, not per event.
		return
	}
	same := s
	s.Time, s.Cursor = at, cursor
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return
	}
	l.statusSaid, l.statusAt = &same, at
	path := roster.StatusPath(l.o.StatusDir, l.o.Role)
	if err := ensureDir(l.o.StatusDir); err != nil {
		return
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err == nil {
		_ = os.Rename(tmp, path)
	}
}
