package rawjson

import (
	"bytes"
	"encoding/binary"
)

// The walkers below read compact, valid JSON: the output of Compact or of
// this package's writers. They never index out of range even on other
// input, but what they return for it is unspecified.

// Member is one member of an object: the key as a JSON string (quotes and
// escapes included) and the value as compact JSON.
type Member struct {
	Key   []byte
	Value []byte
}

// Skip returns the index just past the value that starts at b[i].
func Skip(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
			j++
		}
		return j
	}
}

// skipString returns the index just past the string that starts at b[i].
// Most strings are short keys, which a byte loop reads fastest; longer
// ones go to bytes.IndexByte. (Eight bytes at a time in Go measured twice
// as slow as this.)
func skipString(b []byte, i int) int {
	j := i + 1
	for end := min(j+16, len(b)); j < end; j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	for j < len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		backslashes := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
	return len(b)
}

// Members appends the members of obj to dst in document order, duplicates
// included, and returns the extended slice. A non-object appends nothing.
func Members(obj []byte, dst []Member) []Member {
	n := len(obj)
	if n < 2 || obj[0] != '{' || obj[1] == '}' {
		return dst
	}
	for i := 1; i < n && obj[i] == '"'; {
		k := skipString(obj, i)
		if k >= n || obj[k] != ':' {
			return dst
		}
		var v int
		if k+1 < n && obj[k+1] == '"' {
			v = skipString(obj, k+1)
		} else {
			v = Skip(obj, k+1)
		}
		dst = append(dst, Member{Key: obj[i:k], Value: obj[k+1 : v]})
		if v >= n || obj[v] != ',' {
			return dst
		}
		i = v + 1
	}
	return dst
}

// Elements appends the elements of arr to dst and returns the extended
// slice. A non-array appends nothing.
func Elements(arr []byte, dst [][]byte) [][]byte {
	for i := range ElementsSeq(arr) {
		dst = append(dst, i)
	}
	return dst
}

// ElementsSeq iterates over the elements of arr without allocating. A
// non-array yields nothing.
func ElementsSeq(arr []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		if len(arr) < 2 || arr[0] != '[' || arr[1] == ']' {
			return
		}
		for i := 1; i < len(arr); {
			v := Skip(arr, i)
			if v == i || !yield(arr[i:v]) {
				return
			}
			if v >= len(arr) || arr[v] != ',' {
				return
			}
			i = v + 1
		}
	}
}

// HasDuplicateKeys reports whether two members of ms have the same key.
func HasDuplicateKeys(ms []Member) bool {
	if len(ms) > smallObject {
		seen := make(map[string]struct{}, len(ms))
		for _, m := range ms {
			k := string(AppendUnquote(nil, m.Key))
			if _, dup := seen[k]; dup {
				return true
			}
			seen[k] = struct{}{}
		}
		return false
	}
	// Compare a sketch of each key (length and first bytes) before the
	// keys themselves: most pairs differ in it.
	var sketch [smallObject]uint64
	var plain [smallObject]bool
	for i := range ms {
		plain[i] = Plain(ms[i].Key)
		sketch[i] = keySketch(ms[i].Key)
		for j := 0; j < i; j++ {
			if plain[i] && plain[j] && sketch[i] != sketch[j] {
				continue
			}
			if sameKey(ms[i].Key, ms[j].Key, plain[i] && plain[j]) {
				return true
			}
		}
	}
	return false
}

// HasDuplicatePlainKeys is HasDuplicateKeys for the members of a
// PlainValue object, whose keys compare by their bytes.
func HasDuplicatePlainKeys(ms []Member) bool {
	if len(ms) > smallObject {
		return HasDuplicateKeys(ms)
	}
	var sketch [smallObject]uint64
	for i := range ms {
		sketch[i] = keySketch(ms[i].Key)
		for j := 0; j < i; j++ {
			if sketch[i] == sketch[j] && bytes.Equal(ms[i].Key, ms[j].Key) {
				return true
			}
		}
	}
	return false
}

// keySketch mixes the length and up to eight leading bytes of a key
// (after its quote): keys that differ there, as most do, differ in it.
func keySketch(key []byte) uint64 {
	if len(key) >= 9 {
		return binary.LittleEndian.Uint64(key[1:9]) ^ uint64(len(key))<<56
	}
	x := uint64(len(key))
	for i := 1; i < len(key); i++ {
		x = x<<8 | uint64(key[i])
	}
	return x
}

// sameKey is KeyEqual for keys already known to be plain or not.
func sameKey(a, b []byte, bothPlain bool) bool {
	if bothPlain {
		return bytes.Equal(a, b)
	}
	return KeyEqual(a, b)
}

// smallObject is the member count up to which duplicate keys are found by
// comparing every pair; larger objects use a map so that a hostile input
// with many keys stays linear.
const smallObject = 32

// Unique collapses members with equal keys in place, as Python's json.loads
// does: the last value wins, at the position of the first. It returns the
// shortened slice.
func Unique(ms []Member) []Member {
	if len(ms) < 2 {
		return ms
	}
	if len(ms) > smallObject {
		return uniqueLarge(ms)
	}
	var plain [smallObject]bool
	n := 0
	for _, m := range ms {
		p := Plain(m.Key)
		dup := false
		for j := 0; j < n; j++ {
			if sameKey(ms[j].Key, m.Key, p && plain[j]) {
				ms[j].Value = m.Value
				dup = true
				break
			}
		}
		if !dup {
			ms[n], plain[n] = m, p
			n++
		}
	}
	return ms[:n]
}

func uniqueLarge(ms []Member) []Member {
	first := make(map[string]int, len(ms))
	n := 0
	for _, m := range ms {
		k := string(AppendUnquote(nil, m.Key))
		if j, dup := first[k]; dup {
			ms[j].Value = m.Value
			continue
		}
		first[k] = n
		ms[n] = m
		n++
	}
	return ms[:n]
}

// KeyEqual reports whether two JSON strings hold the same text.
func KeyEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if Plain(a) && Plain(b) {
		return false
	}
	var ba, bb [64]byte
	return bytes.Equal(AppendUnquote(ba[:0], a), AppendUnquote(bb[:0], b))
}

// KeyIs reports whether the JSON string key holds exactly name.
func KeyIs(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return false
	}
	var buf [64]byte
	return string(AppendUnquote(buf[:0], key)) == name
}

// Scratch keeps one member slice per nesting depth, so that walking nested
// objects allocates nothing once the slices have grown. The zero value is
// ready to use; a Scratch is not safe for concurrent use.
type Scratch struct {
	levels [][]Member
}

// Members returns the unique members of obj (see Unique) in a slice owned
// by s that stays valid until the next call with the same level.
func (s *Scratch) Members(level int, obj []byte) []Member {
	return Unique(s.All(level, obj))
}

// All returns every member of obj, duplicates included, in a slice owned
// by s that stays valid until the next call with the same level.
func (s *Scratch) All(level int, obj []byte) []Member {
	for len(s.levels) <= level {
		s.levels = append(s.levels, nil)
	}
	ms := Members(obj, s.levels[level][:0])
	s.levels[level] = ms
	return ms
}
