package outbox

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// hashRef is an issue reference in free text: "#12", not part of a
// word, an HTML entity ("&#12;"), a URL fragment or a "##" heading.
var hashRef = regexp.MustCompile(`(^|[^\w&/#])#(\d+)\b`)

// refNumber is a number in a reference field's value ("#3, #5", "3 5").
var refNumber = regexp.MustCompile(`#?\d+`)

// rewriteRefs renumbers the issue references of s with to: the "#N" of
// the text, and every number of the BlockedBy, DependsOn and IssueRef
// fields (which IssueRefs reads with or without "#"). A number to does
// not know is left as it is.
func rewriteRefs(s string, to func(int64) (int64, bool)) string {
	num := func(ref string) string {
		n, err := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64)
		if err != nil {
			return ref
		}
		m, ok := to(n)
		if !ok {
			return ref
		}
		return strings.TrimSuffix(ref, strconv.FormatInt(n, 10)) + strconv.FormatInt(m, 10)
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == FieldBlockedBy || k == FieldDependsOn || k == FieldIssueRef) {
			lead := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			lines[i] = lead + k + ":" + refNumber.ReplaceAllStringFunc(v, num)
			continue
		}
		lines[i] = hashRef.ReplaceAllStringFunc(line, func(m string) string {
			i := strings.LastIndexByte(m, '#')
			return m[:i] + num(m[i:])
		})
	}
	return strings.Join(lines, "\n")
}

// rewriteLabels renumbers the labels that name an issue ("parent:N",
// a sub-issue's parent).
func rewriteLabels(ls []string, to func(int64) (int64, bool)) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		if rest, ok := strings.CutPrefix(l, "parent:"); ok {
			if n, err := strconv.ParseInt(rest, 10, 64); err == nil {
				if m, ok := to(n); ok {
					l = "parent:" + strconv.FormatInt(m, 10)
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// issueTriggers are the prefixes of the Lead's triggers that name an
// issue by its number ("claim:N", "memory:N"); a "comment:C" trigger
// names a comment by its id.
var issueTriggers = []string{"claim", "memory"}

// localTriggers are the prefixes of triggers that answer nothing on the
// outbox but a Lead's own records ("worker:N:attempt": a Worker's result
// it posts, kept in the attempt folders of the old outbox's status
// folder). They stay behind: the Leads on the service start a status
// folder of their own, whose attempts count from 1 again, and a carried
// "worker:N:1" would swallow the first result posted there.
var localTriggers = []string{"worker"}

// answeredOf sorts the triggers of the old outbox onto what carries them
// on the service: one naming an issue or a comment onto it, as a
// template its new number fills in; one a comment's Trigger field set
// onto that comment, as it is; any other (the window's "relay:" keys)
// onto the first issue. A Worker's result's (localTriggers) and one of
// an issue or comment that is gone stay behind.
func answeredOf(triggers []answered, issues map[int64]bool, comments map[int64]bool, fieldOf map[string]int64, first int64) (byIssue, byComment map[int64][]answered) {
	byIssue, byComment = map[int64][]answered{}, map[int64][]answered{}
	for _, t := range triggers {
		parts := strings.SplitN(t.Trigger, ":", 3)
		var n int64 = -1
		if len(parts) >= 2 {
			if v, err := strconv.ParseInt(parts[1], 10, 64); err == nil {
				n = v
			}
		}
		switch {
		case slices.Contains(localTriggers, parts[0]):
		case len(parts) == 2 && parts[0] == "comment" && comments[n]:
			byComment[n] = append(byComment[n], answered{t.Reader, "comment:{comment}"})
		case n >= 0 && slices.Contains(issueTriggers, parts[0]) && issues[n]:
			parts[1] = "{issue}"
			byIssue[n] = append(byIssue[n], answered{t.Reader, strings.Join(parts, ":")})
		case n >= 0 && (parts[0] == "comment" || slices.Contains(issueTriggers, parts[0])):
			// Of an issue or comment that is gone: it comes over as
			// nothing, and kept as it is it would answer the service's
			// own issue or comment of that number.
		case fieldOf[t.Trigger] != 0:
			c := fieldOf[t.Trigger]
			byComment[c] = append(byComment[c], t)
		case first != 0:
			byIssue[first] = append(byIssue[first], t)
		}
	}
	cmp := func(a, b answered) int {
		if c := strings.Compare(a.Reader, b.Reader); c != 0 {
			return c
		}
		return strings.Compare(a.Trigger, b.Trigger)
	}
	for _, m := range []map[int64][]answered{byIssue, byComment} {
		for k := range m {
			slices.SortFunc(m[k], cmp)
		}
	}
	return byIssue, byComment
}
