package compact

import (
	"bytes"

	"github.com/daokit/daokit/compact/internal/rawjson"
)

// meta is what compaction learnt about an entry it kept. A compacted
// Context carries it along, so that compacting the result again does not
// read each entry twice: the drop rules, the normal form and the hashes
// depend on the entry alone. Only the route check and the deduplication,
// which depend on the rest of the context, run again.
type meta struct {
	// id hashes the identity: the event (event_type, dedup_key,
	// step_id) when the entry has a dedup_key, else the content. Equal
	// hashes are confirmed before two entries merge.
	id uint64
	// status hashes the subject and status of a status report, for
	// superseding repeated reports.
	status uint64
	// task and run locate the entry's task_id and run_id strings.
	task, run span
	flags     uint8
}

const (
	analysed  uint8 = 1 << iota // the other fields are set
	keyed                       // id is an event identity
	hasStatus                   // status is set
)

// span locates a value inside its entry, so that meta holds no pointers;
// the zero span is no value.
type span struct{ from, to int32 }

// spanOf locates v, a slice of entry.
func spanOf(entry, v []byte) span {
	if v == nil {
		return span{}
	}
	from := int32(cap(entry) - cap(v))
	return span{from, from + int32(len(v))}
}

func (s span) in(entry []byte) []byte {
	if s.to == 0 {
		return nil
	}
	return entry[s.from:s.to]
}

// fields are the members of an object entry that the rules read, as raw
// JSON values; nil when absent.
type fields struct {
	status, stale, resolved, message, code []byte
	eventType, dedupKey, stepID, lane      []byte
	taskID, runID                          []byte
	// structured: the entry has code, hint, reason_code, retryable or
	// status, which make an API error worth keeping without its message.
	structured bool
}

// fields reads obj, an entry in normal form (so without duplicate keys).
func (a *analyzer) fields(obj []byte) fields {
	return a.fieldsOf(a.scratch.All(0, obj))
}

// fieldsOf reads the members of an entry in normal form.
func (a *analyzer) fieldsOf(ms []rawjson.Member) fields {
	var f fields
	for _, m := range ms {
		if !f.set(m.Key[1:len(m.Key)-1], m.Value) && bytes.IndexByte(m.Key, '\\') >= 0 {
			f.set(rawjson.Text(m.Key, &a.buf), m.Value) // an escaped spelling of a name
		}
	}
	return f
}

// set records the member key: v if the rules read it, and reports whether
// they do.
func (f *fields) set(key, v []byte) bool {
	switch string(key) {
	case "status":
		f.status, f.structured = v, true
	case "stale":
		f.stale = v
	case "resolved":
		f.resolved = v
	case "message":
		f.message = v
	case "code":
		f.code, f.structured = v, true
	case "hint", "reason_code", "retryable":
		f.structured = true
	case "event_type":
		f.eventType = v
	case "dedup_key":
		f.dedupKey = v
	case "step_id":
		f.stepID = v
	case "lane":
		f.lane = v
	case "task_id":
		f.taskID = v
	case "run_id":
		f.runID = v
	default:
		return false
	}
	return true
}

func isTrue(v []byte) bool { return string(v) == "true" }

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// textIs reports whether v is a string whose trimmed, lower-cased text is
// one of words.
func (a *analyzer) textIs(v []byte, words []string) bool {
	return isString(v) && lowerIs(rawjson.TrimSpace(rawjson.Text(v, &a.buf)), words)
}

// entry applies the rules of list l to one entry. It returns the entry as
// it stays (in normal form, maybe rewritten) and what is known about it,
// or the reason it leaves.
func (a *analyzer) entry(l List, raw []byte) ([]byte, meta, fields, Reason, bool) {
	switch {
	case l == EvidencePaths:
		raw, m, reason, ok := a.path(raw)
		return raw, m, fields{}, reason, ok
	case l == APIErrorDumps && isString(raw):
		return a.dumpText(raw)
	case raw[0] != '{':
		return nil, meta{}, fields{}, Invalid, false
	}
	ms := a.scratch.All(0, raw)
	f := a.fieldsOf(ms) // with duplicate keys the last value wins, as in the normal form
	// What the entry alone decides comes first: most entries that leave
	// then never need their normal form.
	switch {
	case l == ExecutionLogs && a.textIs(f.status, finishedStatuses):
		return nil, meta{}, f, Finished, false
	case l == FailureNoise && (isTrue(f.resolved) || a.textIs(f.status, resolvedStatus)):
		return nil, meta{}, f, Resolved, false
	case isTrue(f.stale):
		return nil, meta{}, f, Stale, false
	}
	plain := rawjson.PlainValue(raw)
	if plain && !a.norm.normalPlain(ms, 0) || !plain && !a.norm.normalMembers(ms, 0) {
		raw = a.arena.end(a.norm.appendNormal(a.arena.begin(), raw, 0))
		ms = a.scratch.All(0, raw)
		f = a.fieldsOf(ms)
		plain = rawjson.PlainValue(raw)
	}
	if l == APIErrorDumps {
		var reason Reason
		var ok, rewritten bool
		if raw, rewritten, f, reason, ok = a.dumpObject(raw, f); !ok {
			return nil, meta{}, f, reason, false
		}
		if rewritten {
			ms = a.scratch.All(0, raw)
			plain = rawjson.PlainValue(raw)
		}
	}
	return raw, a.identify(l, raw, ms, &f, plain), f, 0, true
}

// dumpObject applies the API error rules to an object: a message that is a
// dump leaves (an error code found in it stays, as "code"), and an entry
// left with neither structure nor message leaves too.
func (a *analyzer) dumpObject(raw []byte, f fields) (_ []byte, rewritten bool, _ fields, _ Reason, ok bool) {
	dump := isString(f.message) && isDump(rawjson.Text(f.message, &a.buf))
	if dump {
		var code []byte
		if c := errorCode(rawjson.Text(f.message, &a.buf)); c != "" && f.code == nil {
			code = rawjson.AppendQuote(nil, []byte(c))
		}
		raw = a.arena.end(replaceMember(a.arena.begin(), raw, "message", "code", code))
		f = a.fields(raw)
	}
	switch {
	case f.structured:
		return raw, dump, f, 0, true
	case dump:
		return nil, dump, f, Noise, false
	case !isString(f.message):
		return nil, dump, f, Invalid, false
	}
	return raw, dump, f, 0, true
}

// dumpText turns a text API error into an object: {"message": text}, or
// {"code": E_…} when the text is a dump that names an error code. Python
// kept the whole dump when it named a code, and then dropped it on the
// next pass; keeping only the code is stable.
func (a *analyzer) dumpText(raw []byte) ([]byte, meta, fields, Reason, bool) {
	text := rawjson.TrimSpace(rawjson.Text(raw, &a.buf))
	if len(text) == 0 {
		return nil, meta{}, fields{}, Invalid, false
	}
	obj := a.arena.begin()
	if isDump(text) {
		code := errorCode(text)
		if code == "" {
			return nil, meta{}, fields{}, Noise, false
		}
		obj = append(obj, `{"code":`...)
		obj = rawjson.AppendQuote(obj, []byte(code))
	} else {
		obj = append(obj, `{"message":`...)
		obj = rawjson.AppendQuote(obj, text)
	}
	obj = a.arena.end(append(obj, '}'))
	return a.entry(APIErrorDumps, obj)
}

// path applies the evidence path rules: text only, trimmed, not blank, not
// pointing at a dump. Its identity is the cleaned path.
func (a *analyzer) path(raw []byte) ([]byte, meta, Reason, bool) {
	if !isString(raw) {
		return nil, meta{}, Invalid, false
	}
	text := rawjson.TrimSpace(rawjson.Text(raw, &a.buf))
	switch {
	case len(text) == 0:
		return nil, meta{}, Invalid, false
	case isNoisePath(text):
		return nil, meta{}, Noise, false
	}
	a.buf2 = appendCleanPath(a.buf2[:0], text)
	id := a.hasher.Text(a.buf2)
	if !rawjson.Trimmed(raw, &a.buf2) {
		raw = a.arena.end(rawjson.AppendQuote(a.arena.begin(), text))
	}
	return raw, meta{flags: analysed, id: id}, 0, true
}

// identify computes the identity of a kept object entry in normal form,
// given as its members; plain says it is a rawjson.PlainValue.
func (a *analyzer) identify(l List, raw []byte, ms []rawjson.Member, f *fields, plain bool) meta {
	m := meta{flags: analysed}
	if isString(f.taskID) {
		m.task = spanOf(raw, f.taskID)
	}
	if isString(f.runID) {
		m.run = spanOf(raw, f.runID)
	}
	if isString(f.dedupKey) {
		m.flags |= keyed
		m.id = a.combine(f.dedupKey, f.eventType, f.stepID)
	} else if plain {
		m.id = a.hasher.ObjectPlain(ms)
	} else {
		m.id = a.hasher.Object(ms)
	}
	if l == StatusReports && isString(f.status) {
		m.flags |= hasStatus
		m.status = a.combine(f.status, f.eventType, f.taskID, f.runID, f.stepID, f.lane)
	}
	return m
}

// combine hashes several optional values in order.
func (a *analyzer) combine(values ...[]byte) uint64 {
	var acc uint64 = 0x51ed270b27a8ab15
	for _, v := range values {
		var h uint64
		if v != nil {
			h = a.hasher.Value(v)
		}
		acc = rawjson.Combine(acc, h)
	}
	return acc
}

// replaceMember copies obj to dst with the member name replaced by a
// member newName: value, or left out when value is nil.
func replaceMember(dst, obj []byte, name, newName string, value []byte) []byte {
	dst = append(dst, '{')
	first := true
	for _, m := range rawjson.Members(obj, nil) {
		key, val := m.Key, m.Value
		if rawjson.KeyIs(m.Key, name) {
			if value == nil {
				continue
			}
			key, val = rawjson.AppendQuote(nil, []byte(newName)), value
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, key...)
		dst = append(dst, ':')
		dst = append(dst, val...)
	}
	return append(dst, '}')
}
