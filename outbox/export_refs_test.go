package outbox

import "testing"

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
