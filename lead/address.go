package lead

import "strings"

// How an issue comes to a role's Lead (seed 003: the Lead listens to
// to:<role>, @mentions and the assignee): a to:<role> label, an
// assignment to the role (its name or its Lead's actor), or an @<role>
// mention in the body or in a person's comment on an issue no
// other role's label addresses. Each makes the Lead claim the issue when
// it is free; the claim adds the to:<role> label, so that the issue is
// the role's in every list from then on.

// mentions reports whether text mentions role as "@role": a whole name,
// not part of a longer one (@backend-api) or of an address
// (ops@backend); a full stop after it ends a sentence, not the name.
func mentions(text, role string) bool {
	at := "@" + role
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], at)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(at)
		before := j == 0 || !nameChar(text[j-1])
		after := end == len(text) || !nameChar(text[end]) ||
			(text[end] == '.' && (end+1 == len(text) || !nameChar(text[end+1])))
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

// nameChar: the characters of a role name (team's namePattern).
func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// assignedToRole: the assignee is the role or its Lead.
func (l *Lead) assignedToRole(assignee string) bool {
	return assignee == l.o.Role || assignee == l.actor
}
