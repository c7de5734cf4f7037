package lead

import (
	"context"
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// Liveness bounds a Worker's silence as daokit.toml's [heartbeat] bounds
// a controller step's: WARNING (shown, not touched) after WarningAfter
// without output, STALE after StaleAfter: stopped and started again
// within the [restart] bounds, else the issue fails. CheckInterval is how
// often the Lead looks while Workers run (an idle Lead keeps no timer).
type Liveness struct {
	CheckInterval, WarningAfter, StaleAfter time.Duration
	Restart                                 config.Restart
}

// LivenessOf takes a Lead's Liveness from daokit.toml.
func LivenessOf(cfg config.Config) Liveness {
	h := cfg.Heartbeat
	return Liveness{CheckInterval: h.CheckInterval.Std(), WarningAfter: h.WarningAfter.Std(), StaleAfter: h.StaleAfter.Std(), Restart: cfg.Restart}
}

func (v Liveness) withDefaults() Liveness {
	if v.CheckInterval <= 0 {
		v.CheckInterval = config.DefaultCheckInterval
	}
	if v.WarningAfter <= 0 {
		v.WarningAfter = config.DefaultWarningAfter
	}
	if v.StaleAfter <= 0 {
		v.StaleAfter = config.DefaultStaleAfter
	}
	v.StaleAfter = max(v.StaleAfter, v.WarningAfter)
	d := config.DefaultConfig().Restart
	if v.Restart == (config.Restart{}) {
		v.Restart = d
	}
	if v.Restart.Window <= 0 {
		v.Restart.Window = d.Window
	}
	if v.Restart.BackoffBase <= 0 {
		v.Restart.BackoffBase = d.BackoffBase
	}
	if v.Restart.BackoffCap <= 0 {
		v.Restart.BackoffCap = d.BackoffCap
	}
	return v
}

// healthActive is a Worker that spoke within WarningAfter; a silent one
// is roster.HealthWarning, then roster.HealthStale (the words of the Lead's own health
// and of vocab's, as a controller step's).
const healthActive = string(vocab.HealthActive)

// healthOf is the health of a Worker silent for silent.
func (v Liveness) healthOf(silent time.Duration) string {
	switch {
	case silent >= v.StaleAfter:
		return roster.HealthStale
	case silent >= v.WarningAfter:
		return roster.HealthWarning
	}
	return healthActive
}

// checkWorkers judges each running Worker's silence; a STALE one is
// stopped (its end then restarts it, see finish). It reports whether a
// health changed (the Status is written again then).
func (l *Lead) checkWorkers(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	for _, w := range l.running {
		h := l.live.healthOf(now.Sub(w.proc.LastActivity()))
		if h == w.health || w.hung {
			continue
		}
		changed = true
		w.health = h
		if h == roster.HealthStale {
			w.hung = true
			w.proc.Stop(transcript.StopHung)
		}
	}
	return changed
}

// restartDelay records a restart of issue's hung Worker at now and
// returns the wait before it, or ok=false when [restart]'s bound within
// its window is spent. Called with l.mu held.
func (l *Lead) restartDelay(issue int64, now time.Time) (time.Duration, int, bool) {
	kept := l.restarts[issue][:0]
	for _, t := range l.restarts[issue] {
		if now.Sub(t) < l.live.Restart.Window.Std() {
			kept = append(kept, t)
		}
	}
	if len(kept) >= l.live.Restart.MaxRestarts {
		l.restarts[issue] = kept
		return 0, len(kept), false
	}
	l.restarts[issue] = append(kept, now)
	c := backoff.Capped{Base: l.live.Restart.BackoffBase.Std(), Max: l.live.Restart.BackoffCap.Std()}
	return c.Jittered(len(kept), nil), len(kept) + 1, true
}

// restart is a hung Worker's issue waiting to be started again: when,
// and the attempt that was stopped.
type restart struct {
	at      time.Time
	attempt int
}

// restartDue starts again the hung Workers whose restart is due; an
// issue that closed, moved to someone else or left state:running
// meanwhile is dropped.
func (l *Lead) restartDue(ctx context.Context, now time.Time) error {
	l.mu.Lock()
	var due []int64
	for id, r := range l.pending {
		if !now.Before(r.at) {
			due = append(due, id)
		}
	}
	l.mu.Unlock()
	sortIDs(due)
	for _, id := range due {
		is, err := l.ob.Issue(ctx, id)
		if err != nil && !isNotFound(err) {
			return err
		}
		l.mu.Lock()
		delete(l.pending, id)
		l.mu.Unlock()
		if err != nil || is.Closed || is.Assignee != l.actor || !is.HasLabel(roster.LabelRunning) {
			continue
		}
		if err := l.startWorker(ctx, is); err != nil {
			if _, err := l.post(ctx, workerResult{issue: id, err: err}); err != nil {
				return err
			}
		}
	}
	return nil
}
