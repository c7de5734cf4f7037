package compact

import (
	"sync"
	"sync/atomic"

	"github.com/daokit/daokit/compact/internal/rawjson"
)

// analyzer reads one entry at a time: the rules that an entry alone
// decides, its normal form and its hashes. That is most of the work of a
// compaction, and it does not depend on the order of the entries, so the
// entries of a long list are read by several analyzers at once. An
// analyzer is used by one goroutine at a time.
type analyzer struct {
	hasher  rawjson.Hasher
	norm    normalizer
	scratch rawjson.Scratch
	buf     []byte // text of the key or value being read
	buf2    []byte
	arena   arena // rewritten entries
}

// analyseChunk is how many entries an analyzer reads at a time: large
// enough that handing out chunks costs nothing, small enough that the
// goroutines finish together.
const analyseChunk = 2048

// analysis is the outcome of reading every entry of a list: for entry i,
// raws[i] and metas[i] as it stays, or raws[i] nil and reasons[i] why it
// leaves. For the status reports it read, statuses[i] locates the status
// identity, which the superseding rule compares.
type analysis struct {
	raws     [][]byte
	metas    []meta
	reasons  []Reason
	statuses [][6]span // StatusReports only
}

// statusKey returns the status identity of entry i, if the analysis
// located it.
func (res *analysis) statusKey(i int) (statusKey, bool) {
	var key statusKey
	if res.statuses == nil || res.statuses[i][0].to == 0 {
		return key, false
	}
	for j, s := range res.statuses[i] {
		key[j] = s.in(res.raws[i])
	}
	return key, true
}

// analyse reads the entries of list l. Entries that an earlier pass
// analysed keep what it learnt. A long list is read in chunks by up to
// e.workers goroutines, each with an analyzer of its own; every result
// goes to the entry's own index, so the outcome does not depend on which
// goroutine read what.
func (e *engine) analyse(l List, in *items) analysis {
	n := len(in.raws)
	res := analysis{raws: make([][]byte, n), metas: make([]meta, n), reasons: make([]Reason, n)}
	if l == StatusReports {
		res.statuses = make([][6]span, n)
	}
	workers := min(e.workers, (n+analyseChunk-1)/analyseChunk)
	if workers <= 1 {
		e.analyzer.read(l, in, res, 0, n)
		return res
	}
	for len(e.helpers) < workers-1 {
		e.helpers = append(e.helpers, &analyzer{})
	}
	var next atomic.Int64
	work := func(a *analyzer) {
		for {
			from := int(next.Add(analyseChunk)) - analyseChunk
			if from >= n {
				return
			}
			a.read(l, in, res, from, min(from+analyseChunk, n))
		}
	}
	var wg sync.WaitGroup
	for _, a := range e.helpers[:workers-1] {
		wg.Go(func() { work(a) })
	}
	work(&e.analyzer)
	wg.Wait()
	return res
}

// read analyses the entries from..to of in into res.
func (a *analyzer) read(l List, in *items, res analysis, from, to int) {
	for i := from; i < to; i++ {
		if in.metas != nil && in.metas[i].flags&analysed != 0 {
			res.raws[i], res.metas[i] = in.raws[i], in.metas[i]
			continue
		}
		raw, m, f, reason, ok := a.entry(l, in.raws[i])
		if !ok {
			res.reasons[i] = reason
			continue
		}
		res.raws[i], res.metas[i] = raw, m
		if res.statuses != nil && m.flags&hasStatus != 0 {
			for j, v := range f.statusKey() {
				res.statuses[i][j] = spanOf(raw, v)
			}
		}
	}
}
