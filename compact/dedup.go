package compact

import "github.com/daokit/daokit/compact/internal/rawjson"

// eventKey is the identity of a keyed entry: dedup_key, event_type,
// step_id, as raw values.
type eventKey [3][]byte

// statusKey is the identity of a status report: status, event_type,
// task_id, run_id, step_id, lane, as raw values.
type statusKey [6][]byte

// subject is the latest report of one status identity. Its key is read
// when it is first needed, unless the analysis already located it.
type subject struct {
	index int32
	hash  uint64
	known bool // key is set
	key   statusKey
}

func (f *fields) eventKey() eventKey { return eventKey{f.dedupKey, f.eventType, f.stepID} }

func (f *fields) statusKey() statusKey {
	return statusKey{f.status, f.eventType, f.taskID, f.runID, f.stepID, f.lane}
}

// duplicate reports whether an entry repeats one already kept, and
// records it as the next kept entry otherwise.
func (e *engine) duplicate(l List, kept *items, raw []byte, m *meta) bool {
	next := int32(len(kept.raws))
	var fb *fields // read when first needed
	return e.seen.find(m.id, next, func(i int32) bool { return e.same(l, kept, i, raw, m, &fb) }) >= 0
}

// same confirms that the kept entry i and a new entry with the same
// identity hash are the same. *fb caches the new entry's fields.
func (e *engine) same(l List, kept *items, i int32, b []byte, mb *meta, fb **fields) bool {
	a, ma := kept.raws[i], &kept.metas[i]
	switch {
	case ma.id != mb.id || ma.flags&keyed != mb.flags&keyed:
		return false
	case l == EvidencePaths:
		return cleanPath(rawjson.Text(a, &e.buf)) == cleanPath(rawjson.Text(b, &e.buf2))
	case ma.flags&keyed == 0:
		return e.hasher.Equal(a, b)
	}
	ka, ok := e.keys[i]
	if !ok {
		fa := e.fields(a)
		ka = fa.eventKey()
		e.keys[i] = ka
	}
	if *fb == nil {
		fresh := e.fields(b)
		*fb = &fresh
	}
	kb := (*fb).eventKey()
	return e.sameValues(ka[:], kb[:])
}

// supersede records the last kept entry, a status report, as the latest
// of its subject and status, and reports whether it supersedes an earlier
// one: the latest report stays, where it stands. key is the entry's
// status identity when known is true, else it is read when needed.
func (e *engine) supersede(kept *items, key statusKey, known bool) bool {
	idx := int32(len(kept.raws) - 1)
	if len(e.latest) >= len(e.subjects.slots)/2 {
		e.regrowSubjects()
	}
	status := kept.metas[idx].status
	s := e.subjects.find(status, int32(len(e.latest)), func(s int32) bool {
		latest := &e.latest[s]
		if latest.hash != status {
			return false
		}
		if !known {
			key, known = e.statusKeyOf(kept.raws[idx]), true
		}
		if !latest.known {
			latest.key, latest.known = e.statusKeyOf(kept.raws[latest.index]), true
		}
		return e.sameValues(latest.key[:], key[:])
	})
	if s < 0 {
		e.latest = append(e.latest, subject{index: idx, hash: status, key: key, known: known})
		return false
	}
	e.gone[e.latest[s].index] = true
	e.latest[s].index = idx
	return true
}

func (e *engine) statusKeyOf(raw []byte) statusKey {
	f := e.fields(raw)
	return f.statusKey()
}

// regrowSubjects doubles the subjects table, which starts small because
// most lists have few subjects.
func (e *engine) regrowSubjects() {
	e.subjects.reset(2 * max(len(e.latest), 8))
	for i := range e.latest {
		e.subjects.find(e.latest[i].hash, int32(i), func(int32) bool { return false })
	}
}

func (e *engine) sameValues(a, b [][]byte) bool {
	for j := range a {
		if !e.hasher.Equal(a[j], b[j]) {
			return false
		}
	}
	return true
}

// dropGone removes the superseded entries, keeping the order.
func (e *engine) dropGone(kept *items) {
	n := 0
	for i := range kept.raws {
		if !e.gone[i] {
			kept.raws[n], kept.metas[n] = kept.raws[i], kept.metas[i]
			n++
		}
	}
	kept.raws, kept.metas = kept.raws[:n], kept.metas[:n]
}
