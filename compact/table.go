package compact

// table maps identity hashes to entry indexes by open addressing. It does
// what a map[uint64]int32 would, at a fraction of the cost for the
// hundred thousand inserts of a big context, and lets a lookup walk every
// entry that shares a hash: equal hashes are candidates, never proof.
type table struct {
	// slots hold the upper half of a hash and value+1, 0 when empty: 8
	// bytes a slot keeps the table of a 100,000-entry list in 2 MB.
	slots []uint64
	mask  uint64
}

// reset empties the table and sizes it for n entries.
func (t *table) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	if size > len(t.slots) {
		t.slots = make([]uint64, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.mask = uint64(size - 1)
}

// find returns the value of the first entry whose hash may be h (the
// slot keeps half of it) for which match returns true. Otherwise it
// stores value under h and returns -1. match must compare the full hash.
func (t *table) find(h uint64, value int32, match func(int32) bool) int32 {
	tag := h &^ 0xffffffff
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = tag | uint64(uint32(value)+1)
			return -1
		}
		if s&^0xffffffff == tag && match(int32(uint32(s)-1)) {
			return int32(uint32(s) - 1)
		}
	}
}
