package outbox

import (
	"fmt"
	"strconv"
	"strings"
)

// The mailbox fields (seed 003): the structured part of a comment. Each is
// one "Key: value" line; Mailbox renders them in this order after the free
// text, and ParseMailbox reads them from anywhere in a body.
const (
	FieldTrigger   = "Trigger"
	FieldReadUpTo  = "ReadUpTo"
	FieldIssueRef  = "IssueRef"
	FieldChanges   = "Changes"
	FieldTests     = "Tests"
	FieldBlockedBy = "BlockedBy"
	FieldDependsOn = "DependsOn"
	FieldBreaking  = "Breaking"
	FieldState     = "State"
	// FieldSplit asks a Lead to split an issue into sub-issues, one per
	// "; "-separated part.
	FieldSplit = "Split"
)

var fieldOrder = []string{FieldState, FieldTrigger, FieldReadUpTo, FieldIssueRef, FieldChanges, FieldTests, FieldBlockedBy, FieldDependsOn, FieldBreaking, FieldSplit}

func knownField(k string) bool {
	for _, f := range fieldOrder {
		if f == k {
			return true
		}
	}
	return false
}

// Mailbox is one comment of the fixed template: free text for people and
// fields for Leads.
type Mailbox struct {
	Text   string
	Fields map[string]string
	// Invalid are the field lines whose value breaks the contract
	// (mailbox.schema.json), by field: not taken, so that nothing acts on
	// them, but kept for the reader to say so. Render does not write them.
	Invalid map[string]InvalidField
}

// Render writes the text, a blank line, then one line per non-empty
// field in the template order. Values are flattened to one line.
func (m Mailbox) Render() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(m.Text))
	first := true
	for _, k := range fieldOrder {
		v := strings.Join(strings.Fields(m.Fields[k]), " ")
		if v == "" {
			continue
		}
		if first {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			first = false
		} else {
			b.WriteByte('\n')
		}
		b.WriteString(k + ": " + v)
	}
	return b.String()
}

// ParseMailbox reads the fields of body: every line "Key: value" whose
// Key is a mailbox field; the other lines are the text. A value that
// breaks the contract (CheckField) is not taken: it goes to Invalid. Of
// the values a field is given, the first that keeps the contract wins (an
// empty one included: the field not said), and the field is then not in
// Invalid.
func ParseMailbox(body string) Mailbox {
	m := Mailbox{Fields: map[string]string{}}
	var text []string
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !knownField(k) {
			text = append(text, line)
			continue
		}
		if _, seen := m.Fields[k]; seen {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" {
			m.Fields[k] = v
			continue
		}
		if why := CheckField(k, v); why != "" {
			if _, seen := m.Invalid[k]; !seen {
				if m.Invalid == nil {
					m.Invalid = map[string]InvalidField{}
				}
				m.Invalid[k] = InvalidField{Value: v, Reason: why}
			}
			continue
		}
		m.Fields[k] = v
	}
	for k := range m.Invalid {
		if _, taken := m.Fields[k]; taken {
			delete(m.Invalid, k)
		}
	}
	if len(m.Invalid) == 0 {
		m.Invalid = nil
	}
	m.Text = strings.TrimSpace(strings.Join(text, "\n"))
	return m
}

// NotTaken describes the invalid fields in the field order, one
// `Key "value" (reason)` a line, for a reader to say what it did not act
// on ("" when there are none). No line is a field line: written in a
// comment, it is not read back as the field.
func (m Mailbox) NotTaken() string {
	var b strings.Builder
	for _, k := range fieldOrder {
		f, ok := m.Invalid[k]
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		v := f.Value
		if len(v) > 80 {
			v = strings.ToValidUTF8(v[:80], "") + "…"
		}
		fmt.Fprintf(&b, "%s %q (%s)", k, v, f.Reason)
	}
	return b.String()
}

// IssueRefs reads a list of issue references ("#3, #5", "3 5") and
// returns the ids, skipping anything else.
func IssueRefs(s string) []int64 {
	var out []int64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		n, err := strconv.ParseInt(strings.TrimPrefix(f, "#"), 10, 64)
		if err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// FormatRefs writes ids as "#1, #2".
func FormatRefs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "#" + strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ", ")
}
