package events

import "github.com/daokit/daokit/ledger"

// row is one event in the ring, with its rendering cached: a row is drawn
// once per width and language, not once per frame.
type row struct {
	ev   ledger.Event
	line string // rendered at generation gen
	gen  uint64 // 0: never rendered
}

// ring keeps the newest events. Rows are numbered by arrival (seq); the
// ring holds the seqs [first, first+n).
type ring struct {
	buf   []row
	head  int    // index in buf of the oldest row
	n     int    // rows held
	first uint64 // seq of the oldest row held
}

func newRing(capacity int) ring {
	return ring{buf: make([]row, max(capacity, 1))}
}

// push adds ev as seq first+n, evicting the oldest row when full. It
// reports whether a row was evicted.
func (r *ring) push(ev ledger.Event) (evicted bool) {
	if r.n == len(r.buf) {
		r.buf[r.head] = row{ev: ev}
		r.head = (r.head + 1) % len(r.buf)
		r.first++
		return true
	}
	r.buf[(r.head+r.n)%len(r.buf)] = row{ev: ev}
	r.n++
	return false
}

// next returns the seq the next push gets.
func (r *ring) next() uint64 { return r.first + uint64(r.n) }

// at returns the row of seq, which must be held.
func (r *ring) at(seq uint64) *row {
	return &r.buf[(r.head+int(seq-r.first))%len(r.buf)]
}

// clear drops every row; numbering goes on.
func (r *ring) clear() {
	next := r.next()
	clear(r.buf)
	r.head, r.n, r.first = 0, 0, next
}
