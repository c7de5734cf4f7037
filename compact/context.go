package compact

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/daokit/daokit/compact/internal/rawjson"
)

// ErrNotObject is returned when a document that should be a relay context
// is valid JSON but not an object.
var ErrNotObject = errors.New("relay context must be a JSON object")

// relayKey is the member that holds the keep set.
const relayKey = "relay_context"

// Context is a relay context: the JSON object the observer relay keeps,
// in the Python DAOKit's shape. Its relay_context member holds the keep
// set, the members named by List hold the pruned lists, and every other
// member is kept as it is, in its place.
//
// The zero value is the empty context {}. A Context is not safe for
// concurrent mutation; Compact only reads its argument, so several
// goroutines may compact the same Context at once.
type Context struct {
	members []member
}

// member is one top-level member. Values are compact JSON and never
// modified once stored, so contexts share them freely.
type member struct {
	key    string
	rawKey []byte // the key as a JSON string, as read
	value  []byte // nil when items holds the value
	items  *items // the entries of a List member that holds an array
}

// items is the array of a List member, entry by entry.
type items struct {
	raws  [][]byte
	metas []meta // nil, or one per entry: what compaction learnt about it
	// compactedFor is set on a list that Compact produced, to the task
	// and run of the route it used: the only input besides the entries
	// that decides what a list keeps. Compacting the list again under
	// the same route would keep it exactly, so Compact reuses it. Append
	// clears it.
	compactedFor *routeKey
}

// routeKey is the part of the route that decides which entries are stale.
type routeKey struct{ task, run string }

// Parse reads a relay context. data must be one JSON object; anything else
// is an error wrapping a *rawjson.SyntaxError or ErrNotObject. Parse keeps
// no reference to data.
func Parse(data []byte) (*Context, error) {
	buf, err := rawjson.Compact(make([]byte, 0, len(data)), data)
	if err != nil {
		return nil, fmt.Errorf("parse context: %w", err)
	}
	if buf[0] != '{' {
		return nil, fmt.Errorf("parse context: %w", ErrNotObject)
	}
	ms := rawjson.Unique(rawjson.Members(buf, nil))
	c := &Context{members: make([]member, 0, len(ms))}
	for _, m := range ms {
		key := string(rawjson.AppendUnquote(nil, m.Key))
		mb := member{key: key, rawKey: m.Key, value: m.Value}
		if _, ok := listOf(key); ok && m.Value[0] == '[' {
			mb.value = nil
			mb.items = &items{raws: rawjson.Elements(m.Value, nil)}
		}
		c.members = append(c.members, mb)
	}
	return c, nil
}

// UnmarshalJSON reads a relay context as Parse does.
func (c *Context) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*c = *parsed
	return nil
}

// MarshalJSON returns the context as compact JSON, Size bytes long: the
// form hooks read on stdin.
func (c *Context) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, c.Size())
	buf = append(buf, '{')
	for i, m := range c.members {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, m.rawKey...)
		buf = append(buf, ':')
		if m.items == nil {
			buf = append(buf, m.value...)
			continue
		}
		buf = append(buf, '[')
		for j, raw := range m.items.raws {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, raw...)
		}
		buf = append(buf, ']')
	}
	return append(buf, '}'), nil
}

// Encode returns the context the way the Python DAOKit writes its JSON
// files, json.dumps(context, indent=2) plus a newline: members in order,
// non-ASCII escaped, duplicate keys collapsed. Numbers keep their text.
// The same context always encodes to the same bytes.
func (c *Context) Encode() []byte {
	if len(c.members) == 0 {
		return []byte("{}\n")
	}
	var w rawjson.Writer
	buf := make([]byte, 0, c.Size()+c.Size()/2)
	buf = append(buf, '{')
	for i, m := range c.members {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = rawjson.Newline(buf, 1)
		buf = w.AppendString(buf, m.rawKey)
		buf = append(buf, ':', ' ')
		if m.items == nil {
			buf = w.AppendIndent(buf, m.value, 1)
			continue
		}
		buf = encodeItems(&w, buf, m.items.raws)
	}
	return append(buf, '\n', '}', '\n')
}

func encodeItems(w *rawjson.Writer, buf []byte, raws [][]byte) []byte {
	if len(raws) == 0 {
		return append(buf, '[', ']')
	}
	buf = append(buf, '[')
	for j, raw := range raws {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = rawjson.Newline(buf, 2)
		buf = w.AppendIndent(buf, raw, 2)
	}
	return append(rawjson.Newline(buf, 1), ']')
}

// Size returns the length in bytes of the context's compact JSON.
func (c *Context) Size() int {
	n := 2
	for i, m := range c.members {
		if i > 0 {
			n++
		}
		n += len(m.rawKey) + 1
		if m.items == nil {
			n += len(m.value)
			continue
		}
		n += 2 + max(len(m.items.raws)-1, 0)
		for _, raw := range m.items.raws {
			n += len(raw)
		}
	}
	return n
}

// Len returns the number of entries in the context's lists.
func (c *Context) Len() int {
	n := 0
	for _, m := range c.members {
		if m.items != nil {
			n += len(m.items.raws)
		}
	}
	return n
}

// Entries returns the entries of list l as compact JSON, in order. The
// caller must not modify them.
func (c *Context) Entries(l List) []json.RawMessage {
	m := c.find(l.String())
	if m == nil || m.items == nil {
		return nil
	}
	out := make([]json.RawMessage, len(m.items.raws))
	for i, raw := range m.items.raws {
		out[i] = raw
	}
	return out
}

// Append adds entry, one JSON value, at the end of list l, creating the
// list if the context has none. A list member holding something other
// than an array (null included) gives way to the new list, as compaction
// would drop it anyway.
func (c *Context) Append(l List, entry json.RawMessage) error {
	if l < 0 || l >= numLists {
		return fmt.Errorf("append: unknown list %d", int(l))
	}
	raw, err := rawjson.Compact(nil, entry)
	if err != nil {
		return fmt.Errorf("append to %s: %w", l, err)
	}
	m := c.find(l.String())
	if m == nil {
		c.members = append(c.members, newMember(l.String(), nil))
		m = &c.members[len(c.members)-1]
	}
	if m.items == nil {
		m.value, m.items = nil, &items{}
	}
	m.items.raws = append(m.items.raws, raw)
	if m.items.metas != nil {
		m.items.metas = append(m.items.metas, meta{})
	}
	m.items.compactedFor = nil
	return nil
}

// Clone returns a copy of c that shares no mutable state with it.
func (c *Context) Clone() *Context {
	out := &Context{members: slices.Clone(c.members)}
	for i, m := range out.members {
		if m.items != nil {
			out.members[i].items = &items{raws: slices.Clone(m.items.raws), metas: slices.Clone(m.items.metas), compactedFor: m.items.compactedFor}
		}
	}
	return out
}

func (c *Context) find(key string) *member {
	for i := range c.members {
		if c.members[i].key == key {
			return &c.members[i]
		}
	}
	return nil
}

func newMember(key string, value []byte) member {
	return member{key: key, rawKey: rawjson.AppendQuote(nil, []byte(key)), value: value}
}

// Trim keeps the last n entries of list l and reports whether it dropped
// any. The window caps each list with it, so that a context that is
// never compacted (or whose compaction keeps everything) still has a
// bound: the oldest entries go first, since they matter least to a
// successor.
func (c *Context) Trim(l List, n int) bool {
	if l < 0 || l >= numLists || n < 0 {
		return false
	}
	m := c.find(l.String())
	if m == nil || m.items == nil || len(m.items.raws) <= n {
		return false
	}
	drop := len(m.items.raws) - n
	// New slices: a Clone may share the old backing arrays.
	m.items = &items{raws: slices.Clone(m.items.raws[drop:])}
	return true
}
