package liveness

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/ledger"
)

// NewestOutput is the implicit heartbeat: the newest modification time of
// any file under the run's artifact folder (or the whole artifact root
// when the run has none), zero when there is nothing.
func NewestOutput(artifactRoot, taskID, runID string) time.Time {
	root := artifactRoot
	if ledger.ValidID(taskID) && ledger.ValidID(runID) { // never a path from an id that could climb out
		if st, err := os.Stat(filepath.Join(artifactRoot, taskID, runID)); err == nil && st.IsDir() {
			root = filepath.Join(artifactRoot, taskID, runID)
		}
	}
	var newest time.Time
	_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		return nil
	})
	return newest
}

// LedgerThresholds are the limits a ledger is judged by when nobody
// names them: those its writer recorded in heartbeat_status.json, else
// the Python tool's check defaults. The controller records thresholds of
// seconds (20, 45) below the default check interval (300); the interval
// is lowered to fit them.
func LedgerThresholds(hb *ledger.HeartbeatStatus) Thresholds {
	t := DefaultCheckThresholds()
	if hb.WarningAfterSeconds > 0 {
		t.WarningAfter = hb.WarningAfterSeconds
	}
	if hb.StaleAfterSeconds > 0 {
		t.StaleAfter = hb.StaleAfterSeconds
	}
	t.CheckInterval = min(t.CheckInterval, t.WarningAfter)
	return t
}
