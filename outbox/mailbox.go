package outbox

import (
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
// Key is a mailbox field (the first occurrence wins); the other lines are
// the text.
func ParseMailbox(body string) Mailbox {
	m := Mailbox{Fields: map[string]string{}}
	var text []string
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && knownField(k) {
			if _, seen := m.Fields[k]; !seen {
				m.Fields[k] = strings.TrimSpace(v)
			}
			continue
		}
		text = append(text, line)
	}
	m.Text = strings.TrimSpace(strings.Join(text, "\n"))
	return m
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
