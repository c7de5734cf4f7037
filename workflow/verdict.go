package workflow

import (
	"encoding/json"
	"slices"
	"strings"
)

// Decision is a reviewer's verdict. The values are stored in the ledger.
type Decision string

// The decisions.
const (
	Approve        Decision = "approve"
	RequestChanges Decision = "request_changes"
)

// VerdictPrefix starts the structured line by which an agent states its
// verdict, the last such line of its output counting:
//
//	VERDICT: approve — the change does what was asked
//	VERDICT: {"verdict":"request_changes","reason":"…","findings":["…"]}
//	VERDICT: escalate — the task needs a decision from a person
//
// The plain form takes findings from the lines starting with "- " that
// come before it.
const VerdictPrefix = "VERDICT:"

// Verdict is a review: the decision, why, and the concrete findings the
// next coder gets.
type Verdict struct {
	Decision Decision `json:"verdict"`
	Reason   string   `json:"reason,omitempty"`
	Findings []string `json:"findings,omitempty"`
	// Escalate asks the loop to stop and wait for a person.
	Escalate bool `json:"escalate,omitempty"`
}

// Bounds that keep a verdict small enough for the ledger.
const (
	maxFindings     = 20
	maxFindingRunes = 400
	maxReasonRunes  = 400
)

// ParseVerdict reads the verdict from an agent's output: the last
// structured line in texts, searched from the last text to the first (so
// the CLI's result message, handed last, wins over earlier lines). It
// reports false when no text holds one.
func ParseVerdict(texts ...string) (Verdict, bool) {
	for i := len(texts) - 1; i >= 0; i-- {
		lines := strings.Split(texts[i], "\n")
		for j := len(lines) - 1; j >= 0; j-- {
			if v, ok := parseVerdictLine(lines[j]); ok {
				if len(v.Findings) == 0 {
					v.Findings = bulletsBefore(lines[:j])
					if len(v.Findings) == 0 && i > 0 {
						v.Findings = bulletsBefore(texts[:i])
					}
				}
				return v.bounded(), true
			}
		}
	}
	return Verdict{}, false
}

func parseVerdictLine(line string) (Verdict, bool) {
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "*_`>#"))
	if len(line) < len(VerdictPrefix) || !strings.EqualFold(line[:len(VerdictPrefix)], VerdictPrefix) {
		return Verdict{}, false
	}
	rest := strings.TrimSpace(strings.Trim(strings.TrimSpace(line[len(VerdictPrefix):]), "*_`"))
	if strings.HasPrefix(rest, "{") {
		var v Verdict
		if json.Unmarshal([]byte(rest), &v) != nil {
			return Verdict{}, false
		}
		return v.normal()
	}
	word, reason := rest, ""
	if k := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == ':' || r == ',' }); k >= 0 {
		word, reason = rest[:k], rest[k:]
	}
	reason = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(reason), ":-—–,"))
	return Verdict{Decision: Decision(word), Reason: reason}.normal()
}

// normal checks the decision, accepting the spellings people use.
func (v Verdict) normal() (Verdict, bool) {
	switch strings.ToLower(strings.ReplaceAll(string(v.Decision), "-", "_")) {
	case "approve", "approved", "lgtm", "accept":
		v.Decision = Approve
	case "request_changes", "changes_requested", "changes", "reject":
		v.Decision = RequestChanges
	case "escalate":
		v.Decision, v.Escalate = RequestChanges, true
	default:
		return Verdict{}, false
	}
	return v, true
}

// bulletsBefore returns the last block of "- " (or "* ") lines in texts,
// in order: the findings of a plain verdict line.
func bulletsBefore(texts []string) []string {
	var lines []string
	for _, t := range texts {
		lines = append(lines, strings.Split(t, "\n")...)
	}
	var out []string
	for j := len(lines) - 1; j >= 0 && len(out) < maxFindings; j-- {
		t := strings.TrimSpace(lines[j])
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
			out = append(out, strings.TrimSpace(t[2:]))
		case t == "" && len(out) == 0:
		default:
			j = -1 // the block ended
		}
	}
	slices.Reverse(out)
	return out
}

func (v Verdict) bounded() Verdict {
	v.Reason = clipRunes(v.Reason, maxReasonRunes)
	if len(v.Findings) > maxFindings {
		v.Findings = v.Findings[:maxFindings]
	}
	out := make([]string, 0, len(v.Findings))
	for _, f := range v.Findings {
		if f = clipRunes(strings.TrimSpace(f), maxFindingRunes); f != "" {
			out = append(out, f)
		}
	}
	v.Findings = out
	return v
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Line formats v as the structured line ParseVerdict reads.
func (v Verdict) Line() string {
	b, _ := json.Marshal(v)
	return VerdictPrefix + " " + string(b)
}
