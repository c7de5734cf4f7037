package compact

import "github.com/daokit/daokit/compact/internal/rawjson"

// normalizer applies the Python DAOKit's _normalize_mapping to raw JSON
// objects: string members are trimmed and left out when blank, nested
// objects are normalized the same way, everything else (lists included)
// stays as it is. Duplicate keys collapse as json.loads collapses them.
type normalizer struct {
	scratch rawjson.Scratch
	buf     []byte
}

// normal reports whether obj is already its own normal form, which is
// true of almost every entry of a context that was compacted before; such
// entries are kept without a copy.
func (n *normalizer) normal(obj []byte, depth int) bool {
	return n.normalMembers(n.scratch.All(depth, obj), depth)
}

// normalMembers is normal for an object given as all its members.
func (n *normalizer) normalMembers(ms []rawjson.Member, depth int) bool {
	if rawjson.HasDuplicateKeys(ms) {
		return false
	}
	for _, m := range ms {
		switch m.Value[0] {
		case '"':
			if !rawjson.Trimmed(m.Value, &n.buf) {
				return false
			}
		case '{':
			if !n.normal(m.Value, depth+1) {
				return false
			}
		}
	}
	return true
}

// normalPlain is normalMembers for the members of a PlainValue object,
// which need no decoding.
func (n *normalizer) normalPlain(ms []rawjson.Member, depth int) bool {
	if rawjson.HasDuplicatePlainKeys(ms) {
		return false
	}
	for _, m := range ms {
		switch m.Value[0] {
		case '"':
			if !rawjson.TrimmedPlain(m.Value) {
				return false
			}
		case '{':
			if !n.normalPlain(n.scratch.All(depth+1, m.Value), depth+1) {
				return false
			}
		}
	}
	return true
}

// appendNormal appends the normal form of obj to dst.
func (n *normalizer) appendNormal(dst, obj []byte, depth int) []byte {
	dst = append(dst, '{')
	first := true
	for _, m := range n.scratch.Members(depth, obj) {
		var text []byte
		if m.Value[0] == '"' {
			if text = rawjson.TrimSpace(rawjson.Text(m.Value, &n.buf)); len(text) == 0 {
				continue
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, m.Key...)
		dst = append(dst, ':')
		switch m.Value[0] {
		case '"':
			dst = rawjson.AppendQuote(dst, text)
		case '{':
			dst = n.appendNormal(dst, m.Value, depth+1)
		default:
			dst = append(dst, m.Value...)
		}
	}
	return append(dst, '}')
}
