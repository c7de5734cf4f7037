package controller

import (
	"slices"

	"github.com/daokit/daokit/ledger"
)

// maxEnded bounds the failed and blocked runs the index keeps for a
// retry after a restart: the oldest go first. A person retries recent
// runs; older ones stay in the log, and `daokit run --task-id` can still
// start them again as new work.
const maxEnded = 64

// endEntry keeps the entry of a run that finished FAILED or BLOCKED,
// or DONE with its change in a pull request: it waits for the person's
// /retry (a /reject for another round of the pull request), and a
// successor controller must know it (RUN_FINISHED removed it from the
// open instructions).
func (x *instrIndex) endEntry(en indexEntry, e *ledger.Event) {
	status := e.Payload.String("status")
	prDone := status == ledger.StatusDone && en.PR != nil // another round may be asked (prround.go)
	if en.Kind != entryInstruction || (status != ledger.StatusFailed && status != ledger.StatusBlocked && !prDone) {
		return
	}
	en.Final, en.FinalReason, en.FinalStep, en.Review, en.Unreviewed = status, e.Payload.String("reason_code"), e.StepID, nil, false
	x.ended[en.MessageID] = &en
	for len(x.ended) > maxEnded {
		var oldest *indexEntry
		for _, o := range x.ended {
			if oldest == nil || o.Seq < oldest.Seq {
				oldest = o
			}
		}
		delete(x.ended, oldest.MessageID)
	}
}

// reopenEnded opens an ended run again (its retry), with what it
// had done; it reports whether id was an ended run.
func (x *instrIndex) reopenEnded(id string) bool {
	en, ok := x.ended[id]
	if !ok {
		return false
	}
	delete(x.ended, id)
	e := *en
	e.Final, e.FinalReason, e.FinalStep, e.Started = "", "", "", true
	x.openEntry(e)
	return true
}

// endedEntries returns the runs waiting for a retry, oldest first.
func (x *instrIndex) endedEntries() []indexEntry {
	out := make([]indexEntry, 0, len(x.ended))
	for _, en := range x.ended {
		out = append(out, *en)
	}
	slices.SortFunc(out, func(a, b indexEntry) int { return int(a.Seq - b.Seq) })
	return out
}
