package lead

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/workflow"
)

// stepMemory is a loop attempt's workflow.Memory: each finished step's
// record in its folder (<attempt>/<step id>/step.json), written and
// synced before the loop goes on, so that a loop run again in the same
// attempt (by a Lead that took over) skips it.
type stepMemory struct {
	l   *Lead
	dir string // the attempt's folder
}

// Recall returns a step's record; without one, a step whose Worker had
// finished when its Lead died (its exit recorded with status 0, or its
// result in its log, as the single-Worker path reads it back) is read
// back from its log and counts as finished. A judge step is recalled
// only from its record (its decision).
func (m *stepMemory) Recall(stepID string) (workflow.Record, bool) {
	dir := filepath.Join(m.dir, stepID)
	if data, err := os.ReadFile(filepath.Join(dir, stepRecordFile)); err == nil {
		var r workflow.Record
		if json.Unmarshal(data, &r) == nil {
			return r, true
		}
	}
	if strings.HasSuffix(stepID, "-"+workflow.JudgeStep) {
		return workflow.Record{}, false
	}
	spec := m.l.stepSpec(&workerRun{dir: m.dir}, stepID, m.l.stepKind(stepID))
	finished := false
	if rec, err := readAttemptResult(dir); err == nil {
		finished = rec.ExitCode == 0 && rec.Signal == ""
	} else if mb, summary, err := readEvidence(spec); err == nil {
		done, said := workerState(mb.Fields)
		finished = said && done || !said && summary.Result != nil && !summary.Result.Failed
	}
	if !finished {
		return workflow.Record{}, false
	}
	out, err := stepOutput(spec)
	if err != nil {
		return workflow.Record{}, false
	}
	rec := workflow.Record{Output: out}
	// Recorded now, so that the read-back is what the loop goes on with
	// from here, whoever reads it.
	_ = m.Remember(stepID, "", rec)
	return rec, true
}

// Remember records a finished step, synced, before the loop goes on.
func (m *stepMemory) Remember(stepID string, _ workflow.Role, rec workflow.Record) error {
	dir := filepath.Join(m.dir, stepID)
	if err := ensureDir(dir); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return writeSynced(dir, stepRecordFile, data)
}

// writeSynced writes name in dir through a synced temp file renamed
// over, then syncs dir: once it returns, the file survives a crash.
func writeSynced(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
