package rawjson

import (
	"bytes"
	"hash/maphash"
)

// seed is fixed for the life of the process so that hashes kept with
// compacted entries stay comparable between runs. Results never depend on
// its value: every hash match is confirmed with Equal.
var seed = maphash.MakeSeed()

// Type tags keep values of different JSON types apart.
const (
	tagString uint64 = 0x9e3779b97f4a7c15
	tagNumber uint64 = 0xc2b2ae3d27d4eb4f
	tagObject uint64 = 0x165667b19e3779f9
	tagArray  uint64 = 0x27d4eb2f165667c5
	tagTrue   uint64 = 0x85ebca77c2b2ae63
	tagFalse  uint64 = 0xff51afd7ed558ccd
	tagNull   uint64 = 0xc4ceb9fe1a85ec53
)

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hasher hashes and compares JSON values by meaning rather than by bytes:
// object member order, duplicate keys and string escapes do not matter,
// numbers compare by their text. Equal values always hash alike. The zero
// value is ready to use; a Hasher is not safe for concurrent use.
type Hasher struct {
	scratch Scratch
	a, b    []byte
}

// Value returns the hash of the compact JSON value v.
func (h *Hasher) Value(v []byte) uint64 { return h.value(v, 0) }

// Text returns the hash of a text, as Value hashes a JSON string holding it.
func (h *Hasher) Text(text []byte) uint64 {
	return mix(maphash.Bytes(seed, text) ^ tagString)
}

// Combine folds the hash x into the running hash acc, in order.
func Combine(acc, x uint64) uint64 { return mix(acc ^ x + 0x9e3779b97f4a7c15) }

func (h *Hasher) value(v []byte, depth int) uint64 {
	if len(v) == 0 {
		return tagNull
	}
	switch v[0] {
	case '"':
		return h.Text(h.text(v))
	case '{':
		return h.object(h.scratch.Members(depth, v), depth)
	case '[':
		acc := tagArray
		for e := range ElementsSeq(v) {
			acc = Combine(acc, h.value(e, depth+1))
		}
		return acc
	case 't':
		return tagTrue
	case 'f':
		return tagFalse
	case 'n':
		return tagNull
	default:
		return mix(maphash.Bytes(seed, v) ^ tagNumber)
	}
}

// Object returns the hash of an object given as its members, which must
// have unique keys (see Unique). It equals Value of the object.
func (h *Hasher) Object(ms []Member) uint64 { return h.object(ms, 0) }

// ObjectPlain is Object for the members, in document order, of a
// PlainValue object without duplicate keys.
func (h *Hasher) ObjectPlain(ms []Member) uint64 {
	var sum uint64
	for _, m := range ms {
		if v := m.Value; v[0] != '{' && v[0] != '[' {
			sum += mix(maphash.Bytes(seed, m.Key[:len(m.Key)+1+len(v)]))
			continue
		}
		sum += h.member(m, 0)
	}
	return mix(sum ^ tagObject ^ uint64(len(ms)))
}

func (h *Hasher) object(ms []Member, depth int) uint64 {
	var sum uint64
	for _, m := range ms {
		sum += h.member(m, depth)
	}
	return mix(sum ^ tagObject ^ uint64(len(ms)))
}

// member hashes one object member as the bytes "key":value with strings
// written as their text, unescaped, so that most members hash straight
// from the document. Two members that mean the same give the same bytes;
// different members may too, which Equal sorts out.
func (h *Hasher) member(m Member, depth int) uint64 {
	v := m.Value
	if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
		return mix(maphash.Bytes(seed, h.text(m.Key))*0x9fb21c651e98df25 ^ h.value(v, depth+1))
	}
	// Key, colon and value are adjacent in the compact document, unless
	// Unique moved a later value of the same key here.
	adjacent := cap(m.Key)-len(m.Key)-1 == cap(v)
	if adjacent && Plain(m.Key) && (v[0] != '"' || Plain(v)) {
		return mix(maphash.Bytes(seed, m.Key[:len(m.Key)+1+len(v)]))
	}
	b := append(h.b[:0], '"')
	b = AppendUnquote(b, m.Key)
	b = append(b, '"', ':')
	if v[0] == '"' {
		b = append(b, '"')
		b = AppendUnquote(b, v)
		b = append(b, '"')
	} else {
		b = append(b, v...)
	}
	h.b = b
	return mix(maphash.Bytes(seed, b))
}

// Equal reports whether the compact JSON values a and b mean the same.
func (h *Hasher) Equal(a, b []byte) bool { return h.equal(a, b, 0) }

func (h *Hasher) equal(a, b []byte, depth int) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 || a[0] != b[0] {
		return false
	}
	switch a[0] {
	case '"':
		return h.textEqual(a, b)
	case '{':
		ma := h.scratch.Members(2*depth, a)
		mb := h.scratch.Members(2*depth+1, b)
		if len(ma) != len(mb) {
			return false
		}
		for _, x := range ma {
			found := false
			for _, y := range mb {
				if KeyEqual(x.Key, y.Key) {
					found = h.equal(x.Value, y.Value, depth+1)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case '[':
		return h.equalArrays(a, b, depth)
	default: // numbers and literals compare by text, already unequal
		return false
	}
}

// textEqual reports whether two JSON strings hold the same text.
func (h *Hasher) textEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if Plain(a) && Plain(b) {
		return false
	}
	h.a = AppendUnquote(h.a[:0], a)
	h.b = AppendUnquote(h.b[:0], b)
	return bytes.Equal(h.a, h.b)
}

// text returns the text of the JSON string s, valid until the next call.
func (h *Hasher) text(s []byte) []byte { return Text(s, &h.a) }

// equalArrays walks two arrays side by side.
func (h *Hasher) equalArrays(a, b []byte, depth int) bool {
	if len(a) < 2 || len(b) < 2 || a[1] == ']' || b[1] == ']' {
		return false // bytes.Equal already matched two empty arrays
	}
	for i, j := 1, 1; ; {
		ea, eb := Skip(a, i), Skip(b, j)
		if !h.equal(a[i:ea], b[j:eb], depth+1) {
			return false
		}
		endA := ea >= len(a) || a[ea] != ','
		endB := eb >= len(b) || b[eb] != ','
		if endA || endB {
			return endA == endB
		}
		i, j = ea+1, eb+1
	}
}
