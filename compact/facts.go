package compact

import (
	"strings"

	"github.com/daokit/daokit/compact/internal/rawjson"
	"github.com/daokit/daokit/ledger"
)

// Facts is the keep set of a relay context: what the relay must still be
// able to answer after any compaction. An empty string or a nil slice
// means unknown; a non-nil empty slice means known to be empty.
type Facts struct {
	Goal              string
	Constraints       []string
	LatestInstruction string
	CurrentBlockers   []string
	// Route is controller_route_summary: where the controller routed the
	// latest instruction.
	Route ledger.Route
}

// PipelineFacts returns what a pipeline_state.json knows of the keep set:
// the goal, the route (PipelineState.Route: the controller's route:* keys,
// else the Python tool's) and the blockers (a BLOCKED or
// FAILED status, and every "step:<id>" the handoff rules classify as
// failed, written as "<key>=<value>").
func PipelineFacts(p ledger.PipelineState) Facts {
	lc := p.RoleLifecycle
	f := Facts{Goal: trim(p.Goal)}
	f.Route = p.Route()
	f.CurrentBlockers = []string{}
	if p.Status == ledger.StatusBlocked || p.Status == ledger.StatusFailed {
		f.CurrentBlockers = append(f.CurrentBlockers, "status="+p.Status)
	}
	for _, field := range lc {
		if !strings.HasPrefix(field.Key, "step:") {
			continue
		}
		v := lc.Get(field.Key)
		if failedStep(v) {
			f.CurrentBlockers = append(f.CurrentBlockers, field.Key+"="+trim(v))
		}
	}
	return f
}

// failedStep is the handoff package's "failed" class of a step status
// (see daokit-compat §4.2), kept here because compact may not import heal.
func failedStep(v string) bool {
	v = strings.ToLower(trim(v))
	return strings.Contains(v, "failed") || v == "error" || v == "blocked"
}

// Facts returns the keep set as the context holds it, read with the rules
// compaction applies (text trimmed, blank text and non-text items ignored)
// and without anything from a ledger.
func (c *Context) Facts() Facts {
	m := c.find(relayKey)
	if m == nil || m.items != nil {
		return Facts{}
	}
	var s rawjson.Scratch
	var buf []byte
	return readKeepSet(m.value, &s, &buf).Facts
}

// SetFacts overwrites the keep-set fields that f knows (non-empty strings,
// non-nil slices, route fields one by one) in relay_context, creating it
// if needed. Other members of relay_context stay; compaction decides about
// them. The window calls it when the person sends a new instruction.
func (c *Context) SetFacts(f Facts) {
	m := c.find(relayKey)
	var current []byte
	if m != nil && m.items == nil && len(m.value) > 0 && m.value[0] == '{' {
		current = m.value
	}
	ms := rawjson.Unique(rawjson.Members(current, nil))
	ms = setText(ms, "goal", f.Goal)
	ms = setList(ms, "constraints", f.Constraints)
	ms = setText(ms, "latest_instruction", f.LatestInstruction)
	ms = setList(ms, "current_blockers", f.CurrentBlockers)
	if f.Route != (ledger.Route{}) {
		var route []byte
		for _, rm := range ms {
			if rawjson.KeyIs(rm.Key, "controller_route_summary") && rm.Value[0] == '{' {
				route = rm.Value
			}
		}
		rs := rawjson.Unique(rawjson.Members(route, nil))
		for i, name := range routeFields {
			rs = setText(rs, name, routeValue(&f.Route, i))
		}
		ms = setMember(ms, "controller_route_summary", appendObject(nil, rs))
	}
	value := appendObject(nil, ms)
	if m == nil {
		c.members = append(c.members, newMember(relayKey, value))
		return
	}
	m.value, m.items = value, nil
}

func setText(ms []rawjson.Member, name, text string) []rawjson.Member {
	if text = trim(text); text == "" {
		return ms
	}
	return setMember(ms, name, rawjson.AppendQuote(nil, []byte(text)))
}

func setList(ms []rawjson.Member, name string, list []string) []rawjson.Member {
	if list == nil {
		return ms
	}
	return setMember(ms, name, appendTextList(nil, list))
}

// setMember replaces the value of name in place, or appends the member.
func setMember(ms []rawjson.Member, name string, value []byte) []rawjson.Member {
	for i := range ms {
		if rawjson.KeyIs(ms[i].Key, name) {
			ms[i].Value = value
			return ms
		}
	}
	return append(ms, rawjson.Member{Key: rawjson.AppendQuote(nil, []byte(name)), Value: value})
}

func appendObject(dst []byte, ms []rawjson.Member) []byte {
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, m.Key...)
		dst = append(dst, ':')
		dst = append(dst, m.Value...)
	}
	return append(dst, '}')
}

// appendTextList writes the trimmed, non-blank items of list.
func appendTextList(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	n := 0
	for _, s := range list {
		s = trim(s)
		if s == "" {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = rawjson.AppendQuote(dst, []byte(s))
		n++
	}
	return append(dst, ']')
}

// Stamp sets relay_context.updated_at to at, last among its members as
// in the seed's minimal shape. The window stamps the keep set when one of
// its facts changed, so that an unchanged context keeps its bytes.
func (c *Context) Stamp(at string) {
	if at = trim(at); at == "" {
		return
	}
	m := c.find(relayKey)
	var current []byte
	if m != nil && m.items == nil && len(m.value) > 0 && m.value[0] == '{' {
		current = m.value
	}
	ms := rawjson.Unique(rawjson.Members(current, nil))
	out := ms[:0]
	for _, rm := range ms {
		if !rawjson.KeyIs(rm.Key, "updated_at") {
			out = append(out, rm)
		}
	}
	out = setMember(out, "updated_at", rawjson.AppendQuote(nil, []byte(at)))
	value := appendObject(nil, out)
	if m == nil {
		c.members = append(c.members, newMember(relayKey, value))
		return
	}
	m.value, m.items = value, nil
}

// UpdatedAt returns relay_context.updated_at, "" when there is none.
func (c *Context) UpdatedAt() string {
	m := c.find(relayKey)
	if m == nil || m.items != nil {
		return ""
	}
	var s rawjson.Scratch
	var buf []byte
	return readKeepSet(m.value, &s, &buf).updatedAt
}
