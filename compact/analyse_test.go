package compact

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/daokit/daokit/compact/internal/ctxgen"
	"github.com/daokit/daokit/ledger"
)

// Reading a long list with several goroutines must give exactly what one
// goroutine gives: the same bytes, the same report, and a result that the
// next pass treats alike.
func TestConcurrentReadingMatchesSequential(t *testing.T) {
	t.Parallel()
	c, err := Parse(ctxgen.Big(16*analyseChunk, 7))
	if err != nil {
		t.Fatal(err)
	}
	known := Facts{Route: ledger.Route{TaskID: ctxgen.TaskID, RunID: ctxgen.RunID}}
	one, oneRep := compact(c, known, 1)
	for _, row := range oneRep.Lists {
		if row.Before <= analyseChunk || row.Kept == 0 {
			t.Fatalf("%s: %d entries, %d kept: too few to read in chunks", row.List, row.Before, row.Kept)
		}
	}
	for _, workers := range []int{2, 3, 8} {
		many, manyRep := compact(c, known, workers)
		if !bytes.Equal(one.Encode(), many.Encode()) {
			t.Fatalf("%d workers: output differs from one worker's", workers)
		}
		if !reflect.DeepEqual(oneRep, manyRep) {
			t.Fatalf("%d workers: report %+v, one worker's %+v", workers, manyRep, oneRep)
		}
	}
}
