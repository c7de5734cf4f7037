package vocab_test

import (
	"slices"
	"testing"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// TestLedgerOps: the operations the ledger's store writes itself (it
// imports nothing of daokit's) are in the vocabulary, so that the window
// labels them.
func TestLedgerOps(t *testing.T) {
	t.Parallel()
	for _, op := range []string{ledger.OpCommitDiscarded, ledger.OpWriteConflict, ledger.OpLeasesMerged, ledger.OpForeignPipelineReplaced} {
		if !slices.Contains(vocab.Ops(), vocab.Op(op)) {
			t.Errorf("the ledger's operation %s is not in the vocabulary", op)
		}
	}
}
