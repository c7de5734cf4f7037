package roster

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// Health of a Lead as the roles views show it.
const (
	HealthAlive   = "ALIVE"
	HealthWarning = "WARNING"
	HealthStale   = "STALE"
	HealthDown    = "DOWN"
)

// RoleView is one role as `daokit status` and the window's roles pane show
// it: its Lead's health, how far its cursor lags the outbox, and its work.
type RoleView struct {
	Role    string             `json:"role"`
	Health  string             `json:"health"`
	PID     int                `json:"pid"`
	Cursor  int64              `json:"cursor"`
	Lag     int64              `json:"lag"`
	Limit   int                `json:"limit"`
	Claimed int                `json:"claimed"`
	Running []int64            `json:"running"`
	Queued  []int64            `json:"queued"`
	Blocked map[string][]int64 `json:"blocked"`
	// GroupFull: the role's oldest queued issue waits for a group cap it
	// shares with other roles.
	GroupFull bool `json:"group_full,omitempty"`
	// Memory are the files of the accepted decisions the Lead gives its
	// Workers, newest first.
	Memory []string `json:"memory,omitempty"`
	// Workers are the role's running Workers (and those waiting for a
	// restart) as its Lead last published them: attempt, heartbeat
	// (ACTIVE, WARNING, STALE), logs and worktree.
	Workers []WorkerStatus `json:"workers,omitempty"`
	// RateWait is the wait GitHub imposes on the Lead (nil: none).
	RateWait *outbox.RateWait `json:"rate_wait,omitempty"`
	// LastExit is why the role's Lead last ended (nil when it never
	// did); while the Lead is DOWN it is why it is down.
	LastExit *Exit `json:"last_exit,omitempty"`
}

// Views reads every role's status file and the outbox (cursors, claimed
// issues). warn and stale are the heartbeat thresholds of daokit.toml.
// ob may be nil (the outbox was refused): the roles are then shown from
// their status and exit files alone, with no lag or claims.
func Views(ctx context.Context, wf *team.Workflow, ob outbox.Backend, warn, stale time.Duration, now time.Time) ([]RoleView, error) {
	var head int64
	cursors := map[string]int64{}
	if ob != nil {
		var err error
		if head, err = ob.Head(ctx); err != nil {
			return nil, err
		}
		if cursors, err = ob.Cursors(ctx); err != nil {
			return nil, err
		}
	}
	dir := StatusDir(wf)
	out := make([]RoleView, 0, len(wf.Names))
	for _, role := range wf.Names {
		v := RoleView{Role: role, Health: HealthDown, Cursor: cursors[Actor(role)], Blocked: map[string][]int64{}}
		v.Lag = head - v.Cursor
		st, err := ReadStatus(dir, role)
		switch {
		case err == nil:
			v.PID, v.Limit, v.Running, v.Queued, v.Blocked, v.GroupFull, v.Memory = st.PID, st.Limit, st.Running, st.Queued, st.Blocked, st.GroupFull, st.Memory
			if liveness.ProcessAlive(st.PID) {
				v.Workers = st.Workers
				// A live Lead writes its cursor to the outbox past events
				// that need nothing only now and then; what it has read
				// is in its status.
				if st.Cursor > v.Cursor {
					v.Cursor, v.Lag = st.Cursor, max(head-st.Cursor, 0)
				}
			}
			if st.RateWait != nil && st.RateWait.Until.After(now) {
				v.RateWait = st.RateWait
			}
			age := now.Sub(st.Time)
			switch {
			case !liveness.ProcessAlive(st.PID):
				v.Health = HealthDown
			case age >= stale:
				v.Health = HealthStale
			case age >= warn:
				v.Health = HealthWarning
			default:
				v.Health = HealthAlive
			}
		case !errors.Is(err, fs.ErrNotExist):
			v.Health = HealthStale
		}
		if e, err := ReadExit(dir, role); err == nil {
			v.LastExit = &e
		}
		if ob != nil {
			claimed, err := ob.List(ctx, outbox.Query{Assignee: Actor(role), State: "open"})
			if err != nil {
				return nil, err
			}
			v.Claimed = len(claimed)
		}
		out = append(out, v)
	}
	return out, nil
}
