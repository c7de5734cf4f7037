package compact

import (
	"strings"

	"github.com/daokit/daokit/compact/internal/rawjson"
	"github.com/daokit/daokit/ledger"
)

// routeFields are the members of controller_route_summary, in the order
// compaction writes them.
var routeFields = [5]string{"task_id", "run_id", "active_lane", "active_step", "next_action"}

func routeValue(r *ledger.Route, i int) string {
	return *routeField(r, i)
}

func routeField(r *ledger.Route, i int) *string {
	switch i {
	case 0:
		return &r.TaskID
	case 1:
		return &r.RunID
	case 2:
		return &r.ActiveLane
	case 3:
		return &r.ActiveStep
	default:
		return &r.NextAction
	}
}

// trim trims s as Python's str.strip does, the rule for all keep-set text.
func trim(s string) string { return strings.TrimFunc(s, rawjson.IsSpace) }

// keepSet is relay_context read with the keep-set rules: text trimmed and
// ignored when blank, lists reduced to their non-blank text items.
type keepSet struct {
	Facts
	// routeExtra are route members outside the five fields; Python's
	// strict path keeps them, and so does compaction, in order.
	routeExtra []rawjson.Member
	// profile is user_profile, an object kept as it is; updatedAt is
	// updated_at, trimmed text. Both belong to the seed's minimal shape
	// (user_profile first, updated_at last) but are not facts: the ledger
	// never fills them and the self-check does not ask for them.
	profile   []byte
	updatedAt string
	// dropped are members that compaction removes unless the ledger
	// fills them: keep-set fields of the wrong type or blank, and every
	// member outside the keep set.
	dropped []string
}

// readKeepSet reads relay, a compact JSON value that may be anything.
func readKeepSet(relay []byte, s *rawjson.Scratch, buf *[]byte) keepSet {
	var ks keepSet
	for _, m := range s.Members(0, relay) {
		key := string(rawjson.Text(m.Key, buf))
		ok := true
		switch key {
		case "goal":
			ks.Goal, ok = textOf(m.Value, buf)
		case "latest_instruction":
			ks.LatestInstruction, ok = textOf(m.Value, buf)
		case "constraints":
			ks.Constraints, ok = textListOf(m.Value, buf)
		case "current_blockers":
			ks.CurrentBlockers, ok = textListOf(m.Value, buf)
		case "controller_route_summary":
			ok = ks.readRoute(m.Value, s, buf)
		case "user_profile":
			ok = m.Value[0] == '{'
			if ok {
				ks.profile = m.Value
			}
		case "updated_at":
			ks.updatedAt, ok = textOf(m.Value, buf)
		default:
			ok = false
		}
		if !ok {
			ks.dropped = append(ks.dropped, key)
		}
	}
	return ks
}

func (ks *keepSet) readRoute(v []byte, s *rawjson.Scratch, buf *[]byte) bool {
	if v[0] != '{' {
		return false
	}
	for _, m := range s.Members(1, v) {
		key := string(rawjson.Text(m.Key, buf))
		i := indexOf(routeFields[:], key)
		if i < 0 {
			ks.routeExtra = append(ks.routeExtra, m)
			continue
		}
		text, ok := textOf(m.Value, buf)
		if !ok {
			ks.dropped = append(ks.dropped, "controller_route_summary."+key)
		}
		*routeField(&ks.Route, i) = text
	}
	return true
}

// fill takes from known every field the context lacks and returns the
// names of those it took.
func (ks *keepSet) fill(known Facts) []string {
	var filled []string
	take := func(have *string, from, name string) {
		if *have == "" && trim(from) != "" {
			*have = trim(from)
			filled = append(filled, name)
		}
	}
	takeList := func(have *[]string, from []string, name string) {
		if *have == nil && from != nil {
			*have = trimmedList(from)
			filled = append(filled, name)
		}
	}
	take(&ks.Goal, known.Goal, "goal")
	takeList(&ks.Constraints, known.Constraints, "constraints")
	take(&ks.LatestInstruction, known.LatestInstruction, "latest_instruction")
	takeList(&ks.CurrentBlockers, known.CurrentBlockers, "current_blockers")
	for i, name := range routeFields {
		take(routeField(&ks.Route, i), routeValue(&known.Route, i), "controller_route_summary."+name)
	}
	// A field the ledger filled is no longer dropped.
	ks.dropped = removeAll(ks.dropped, filled)
	return filled
}

// encode writes the keep set in its fixed order, or returns nil when
// nothing is known.
func (ks *keepSet) encode() []byte {
	var buf []byte
	sep := func(key string) {
		if len(buf) == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = rawjson.AppendQuote(buf, []byte(key))
		buf = append(buf, ':')
	}
	if ks.profile != nil {
		sep("user_profile")
		buf = append(buf, ks.profile...)
	}
	if ks.Goal != "" {
		sep("goal")
		buf = rawjson.AppendQuote(buf, []byte(ks.Goal))
	}
	if ks.Constraints != nil {
		sep("constraints")
		buf = appendTextList(buf, ks.Constraints)
	}
	if ks.LatestInstruction != "" {
		sep("latest_instruction")
		buf = rawjson.AppendQuote(buf, []byte(ks.LatestInstruction))
	}
	if ks.CurrentBlockers != nil {
		sep("current_blockers")
		buf = appendTextList(buf, ks.CurrentBlockers)
	}
	if route := ks.encodeRoute(); route != nil {
		sep("controller_route_summary")
		buf = append(buf, route...)
	}
	if ks.updatedAt != "" {
		sep("updated_at")
		buf = rawjson.AppendQuote(buf, []byte(ks.updatedAt))
	}
	if buf == nil {
		return nil
	}
	return append(buf, '}')
}

func (ks *keepSet) encodeRoute() []byte {
	var ms []rawjson.Member
	for i, name := range routeFields {
		if v := routeValue(&ks.Route, i); v != "" {
			ms = append(ms, rawjson.Member{Key: rawjson.AppendQuote(nil, []byte(name)), Value: rawjson.AppendQuote(nil, []byte(v))})
		}
	}
	ms = append(ms, ks.routeExtra...)
	if len(ms) == 0 {
		return nil
	}
	return appendObject(nil, ms)
}

// textOf returns the trimmed text of a JSON string, and false when v is
// not a string or its text is blank.
func textOf(v []byte, buf *[]byte) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	t := string(rawjson.TrimSpace(rawjson.Text(v, buf)))
	return t, t != ""
}

// textListOf returns the trimmed non-blank text items of a JSON array,
// never nil, and false when v is not an array.
func textListOf(v []byte, buf *[]byte) ([]string, bool) {
	if v[0] != '[' {
		return nil, false
	}
	list := []string{}
	for e := range rawjson.ElementsSeq(v) {
		if t, ok := textOf(e, buf); ok {
			list = append(list, t)
		}
	}
	return list, true
}

func trimmedList(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s = trim(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func removeAll(list, remove []string) []string {
	out := list[:0]
	for _, s := range list {
		if indexOf(remove, s) < 0 {
			out = append(out, s)
		}
	}
	return out
}
