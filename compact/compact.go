package compact

import (
	"runtime"
	"sync"

	"github.com/daokit/daokit/compact/internal/rawjson"
	"github.com/daokit/daokit/ledger"
)

// Compact returns the compacted form of c and a report of what changed;
// c itself is not modified. known holds what the ledger knows of the keep
// set: a keep-set field the context lacks (absent, blank or of the wrong
// type) is taken from it. See the package documentation for the rules.
//
// Compact is a pure function: equal inputs give outputs that Encode to
// equal bytes, and compacting its result again, with the same known
// facts, changes nothing. The result remembers that: compacting it again
// reuses each list that nothing was appended to, in microseconds, and
// reads each entry of a reopened list once.
func Compact(c *Context, known Facts) (*Context, Report) {
	return compact(c, known, runtime.GOMAXPROCS(0))
}

// compact is Compact with up to workers goroutines reading each list.
// workers 1 compacts on the calling goroutine alone.
func compact(c *Context, known Facts, workers int) (*Context, Report) {
	if c == nil {
		c = &Context{}
	}
	rep := Report{EntriesBefore: c.Len(), BytesBefore: c.Size()}
	// The keep set goes first: its route decides which entries are stale.
	ks, hasRelay := compactKeepSet(c, known, &rep.Relay)
	keep := ks.encode()
	var tallies [numLists]tally
	kept := compactLists(c, ks.Route, workers, &tallies)
	out := &Context{members: make([]member, 0, len(c.members)+1)}
	for i, m := range c.members {
		l, isList := listOf(m.key)
		switch {
		case m.key == relayKey:
			if keep != nil {
				out.members = append(out.members, member{key: m.key, rawKey: m.rawKey, value: keep})
			}
		case !isList:
			out.members = append(out.members, m)
		case m.items != nil:
			if len(kept[i].raws) > 0 {
				out.members = append(out.members, member{key: m.key, rawKey: m.rawKey, items: kept[i]})
			}
		case string(m.value) == "null":
			// Python leaves a null list alone.
			out.members = append(out.members, m)
		default:
			tallies[l].before, tallies[l].by[Invalid] = 1, 1
		}
	}
	if !hasRelay && keep != nil {
		out.members = append(out.members, newMember(relayKey, keep))
	}
	for l := range numLists {
		rep.Lists = append(rep.Lists, tallies[l].row(l))
	}
	rep.EntriesAfter, rep.BytesAfter = out.Len(), out.Size()
	return out, rep
}

// compactLists compacts every list of c under route; kept[i] is what
// member i keeps, nil for a member that is not a list holding an array.
// The lists do not depend on each other, so a long context compacts them
// at once, each on an engine of its own (whose reading is itself spread
// over up to workers goroutines); the results do not depend on that.
func compactLists(c *Context, route ledger.Route, workers int, tallies *[numLists]tally) []*items {
	kept := make([]*items, len(c.members))
	var jobs []int
	for i, m := range c.members {
		if _, ok := listOf(m.key); ok && m.items != nil {
			jobs = append(jobs, i)
		}
	}
	run := func(e *engine, i int) {
		l, _ := listOf(c.members[i].key)
		kept[i] = e.list(l, c.members[i].items, &tallies[l]) // keys are unique: one list, one tally
	}
	if workers <= 1 || len(jobs) < 2 || c.Len() < analyseChunk {
		e := newEngine(route, workers)
		for _, i := range jobs {
			run(e, i)
		}
		return kept
	}
	var wg sync.WaitGroup
	for _, i := range jobs {
		wg.Go(func() { run(newEngine(route, workers), i) })
	}
	wg.Wait()
	return kept
}

// compactKeepSet reads relay_context, fills it from known and records
// what changed in rr. It reports whether c has a relay_context member.
func compactKeepSet(c *Context, known Facts, rr *RelayReport) (keepSet, bool) {
	var relay []byte
	m := c.find(relayKey)
	if m != nil {
		relay = m.value
	}
	var scratch rawjson.Scratch
	var text []byte
	ks := readKeepSet(relay, &scratch, &text)
	if m != nil && (len(relay) == 0 || relay[0] != '{') {
		ks.dropped = append(ks.dropped, relayKey)
	}
	rr.Filled = append([]string{}, ks.fill(known)...)
	rr.Dropped = append([]string{}, ks.dropped...)
	return ks, m != nil
}

func newEngine(route ledger.Route, workers int) *engine {
	return &engine{route: route, workers: workers, keys: map[int32]eventKey{}}
}

// engine holds the state of one compaction: the analyzers that read the
// entries, and the identities of the entries kept so far in the current
// list.
type engine struct {
	analyzer             // reads entries, and the entries the order-dependent rules compare
	helpers  []*analyzer // more analyzers, for the goroutines that read long lists
	workers  int         // how many goroutines may read a list
	route    ledger.Route
	// seen maps the identity hashes of the kept entries to their index.
	seen table
	// keys remembers the event identity of kept entries that later
	// entries were compared with, so each is read once.
	keys map[int32]eventKey
	// subjects maps a status identity hash to a slot in latest, the
	// latest report of that subject and status; gone marks the kept
	// reports that a later one superseded.
	subjects table
	latest   []subject
	gone     []bool
}

// list compacts the entries of list l. Reading each entry (analyse) comes
// first; the rules that compare an entry with the ones before it (route,
// duplicates, superseded reports) then run in order.
func (e *engine) list(l List, in *items, t *tally) *items {
	route := routeKey{e.route.TaskID, e.route.RunID}
	if in.compactedFor != nil && *in.compactedFor == route {
		// A fixed point: share the entries, capped so that an Append to
		// either list cannot write into the other's.
		n := len(in.raws)
		t.before, t.kept = n, n
		return &items{raws: in.raws[:n:n], metas: in.metas[:n:n], compactedFor: in.compactedFor}
	}
	e.seen.reset(len(in.raws))
	e.subjects.reset(0)
	clear(e.keys)
	e.latest, e.gone = e.latest[:0], e.gone[:0]
	t.before = len(in.raws)
	res := e.analyse(l, in)
	// Kept entries move down in place: the i-th entry is read before
	// anything is written at or past its index.
	out := &items{raws: res.raws[:0], metas: res.metas[:0]}
	for i, raw := range res.raws {
		m := res.metas[i]
		switch {
		case raw == nil:
			t.by[res.reasons[i]]++
		case e.offRoute(raw, &m):
			t.by[Stale]++
		case e.duplicate(l, out, raw, &m):
			t.by[Duplicate]++
		default:
			out.raws = append(out.raws, raw)
			out.metas = append(out.metas, m)
			e.gone = append(e.gone, false)
			if m.flags&hasStatus != 0 {
				if key, known := res.statusKey(i); e.supersede(out, key, known) {
					t.by[Repeated]++
				}
			}
		}
	}
	e.dropGone(out)
	repack(out, in)
	t.kept = len(out.raws)
	out.compactedFor = &route
	return out
}

// repack copies the kept entries into one buffer of their own when they
// are less than half of what the list held: kept entries are slices of
// the parsed document, and a few of them would otherwise keep all of it
// alive for as long as the window keeps its context.
func repack(out, in *items) {
	size := func(raws [][]byte) int {
		n := 0
		for _, raw := range raws {
			n += len(raw)
		}
		return n
	}
	kept := size(out.raws)
	if 2*kept >= size(in.raws) {
		return
	}
	buf := make([]byte, 0, kept)
	for i, raw := range out.raws {
		start := len(buf)
		buf = append(buf, raw...)
		out.raws[i] = buf[start:len(buf):len(buf)]
	}
}

// offRoute reports whether an entry is about another task or run than the
// one the route summary names: work that a newer instruction replaced.
func (e *engine) offRoute(raw []byte, m *meta) bool {
	differs := func(s span, want string) bool {
		v := s.in(raw)
		return v != nil && want != "" && string(rawjson.Text(v, &e.buf)) != want
	}
	return differs(m.task, e.route.TaskID) || differs(m.run, e.route.RunID)
}
