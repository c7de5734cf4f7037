package outbox

import (
	"slices"
	"testing"
)

// References are renumbered in text and in the reference fields (which
// take bare numbers too); headings, entities, URLs and unknown numbers
// stay as they are.
func TestRewriteRefs(t *testing.T) {
	to := func(n int64) (int64, bool) {
		m, ok := map[int64]int64{1: 11, 2: 12, 3: 13}[n]
		return m, ok
	}
	in := "see #1 and (#2), not #9\n## 1 heading\n&#3; x/#3 a#1\nDependsOn: 1, #2\n  BlockedBy: #3 7\nIssueRef: #2"
	want := "see #11 and (#12), not #9\n## 1 heading\n&#3; x/#3 a#1\nDependsOn: 11, #12\n  BlockedBy: #13 7\nIssueRef: #12"
	if got := rewriteRefs(in, to); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := rewriteLabels([]string{"parent:2", "parent:x", "to:qa", "parent:9"}, to); got[0] != "parent:12" || got[1] != "parent:x" || got[3] != "parent:9" {
		t.Fatalf("labels %v", got)
	}
}

// The Leads' triggers go onto what they name, as templates of the new
// numbers; a Trigger field's onto its comment; a Worker's result's and
// those of what is gone stay behind; anything else onto the first issue.
func TestAnsweredOf(t *testing.T) {
	ts := []answered{{"lead:a", "claim:2"}, {"lead:a", "memory:2"}, {"lead:a", "worker:2:1"}, {"lead:a", "comment:7"},
		{"lead:a", "T-x"}, {"window", "relay:r1"}, {"lead:a", "claim:99"}}
	byIssue, byComment := answeredOf(ts, map[int64]bool{1: true, 2: true}, map[int64]bool{7: true, 8: true}, map[string]int64{"T-x": 8}, 1)
	want2 := []answered{{"lead:a", "claim:{issue}"}, {"lead:a", "memory:{issue}"}}
	if !slices.Equal(byIssue[2], want2) {
		t.Fatalf("#2: %v", byIssue[2])
	}
	if !slices.Equal(byComment[7], []answered{{"lead:a", "comment:{comment}"}}) || !slices.Equal(byComment[8], []answered{{"lead:a", "T-x"}}) {
		t.Fatalf("comments: %v", byComment)
	}
	if !slices.Equal(byIssue[1], []answered{{"window", "relay:r1"}}) || len(byIssue) != 2 || len(byComment) != 2 {
		t.Fatalf("#1: %v", byIssue[1])
	}
}
