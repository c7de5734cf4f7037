package main

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/ledger"
)

// openWriter takes the root's writer lock for an operator command that
// found no live controller (see forward: a live one carries the command
// out). One that took the lock since is refused: it is the only writer.
func (a *app) openWriter(dir, code string) (*ledger.Store, error) {
	if err := requireLedger(a, dir); err != nil {
		return nil, failf(code, err.Error())
	}
	store, err := ledger.Open(dir, ledger.Options{Now: time.Now})
	var locked *ledger.LockedError
	var sq *ledger.SQLiteBackendError
	switch {
	case errors.As(err, &sq):
		return nil, failf(code, sqliteMessage(a, sq))
	case errors.As(err, &locked):
		return nil, failf(code, a.t("cli.error.controller_holds_root", "Root", dir, "PID", locked.HolderPID))
	case errors.Is(err, ledger.ErrNoStateDir):
		return nil, failf(code, a.t("cli.error.not_a_ledger", "Root", dir))
	case err != nil:
		return nil, failf(code, a.t("cli.error.open_ledger", "Root", dir, "Reason", a.osReason(err)))
	}
	return store, nil
}

// loadPipeline reads pipeline_state.json for an operator command.
func (a *app) loadPipeline(dir, code string) (ledger.PipelineState, ledger.Leases, error) {
	snap := ledger.LoadSnapshot(dir)
	l := ledger.Layout{Root: dir}
	if snap.Pipeline.Err != nil {
		return ledger.PipelineState{}, ledger.Leases{}, failf(code, a.fileProblem(l.Pipeline(), snap.Pipeline.Err))
	}
	leases := snap.Leases.Value
	if snap.Leases.Err != nil {
		if !errors.Is(snap.Leases.Err, ledger.ErrMissing) {
			return ledger.PipelineState{}, ledger.Leases{}, failf(code, a.fileProblem(l.Leases(), snap.Leases.Err))
		}
		leases = ledger.NewLeases(time.Now())
	}
	return snap.Pipeline.Value, leases, nil
}

// commitProblem says why a write to the ledger failed: the first field
// outside the contract, in words, another writer's save it stopped at,
// or the system's reason. Nothing was written, unless the files could not
// be put back, which it then says (see ledger.Store.Commit).
func (a *app) commitProblem(err error) string {
	if problems := ledger.Problems(err); len(problems) > 0 {
		p := problems[0]
		return a.t("cli.commit.invalid", "File", p.File, "Reason", a.problem(p))
	}
	var pending *ledger.PendingCommitError
	if errors.As(err, &pending) {
		return a.t("cli.commit.pending", "Reason", a.osReason(errors.Join(pending.Err, pending.Undo)),
			"Path", filepath.Join(ledger.StateDir, ledger.JournalFile))
	}
	var conflict *ledger.ConflictError
	if errors.As(err, &conflict) {
		return a.t("cli.commit.conflict", "File", conflict.File)
	}
	return a.t("cli.commit.failed", "Reason", a.osReason(err))
}
