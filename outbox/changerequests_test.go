package outbox

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
)

// Ensure opens a branch's merge request once on GitLab: a second call
// finds it; a POST answered 409 because it exists (the listing lagged)
// finds it too; the token is in PRIVATE-TOKEN only; a refusal names no
// token.
func TestEnsureOpensOneMergeRequestPerBranch(t *testing.T) {
	f := newGitLabFake(t, fakegitlab.Options{})
	crs, err := OpenChangeRequests(PullRequestsConfig{Service: GitLabActor, Repo: testProject, APIURL: f.URL, Token: glToken})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := NewPull{Title: "daokit: x", Body: "body", Head: "daokit/T/R/run", Base: "main"}
	first, created, err := crs.Ensure(ctx, n)
	if err != nil || !created || first.Number != 1 || first.State != "open" || first.Head.Ref != n.Head || first.Base.Ref != "main" ||
		first.HTMLURL != "https://gitlab.example.com/acme/platform/app/-/merge_requests/1" {
		t.Fatalf("first Ensure: %+v created %v, %v", first, created, err)
	}
	again, created, err := crs.Ensure(ctx, n)
	if err != nil || created || again.Number != 1 {
		t.Fatalf("second Ensure: %+v created %v, %v", again, created, err)
	}
	f.Inject(fakegitlab.Fault{Method: "GET", PathSuffix: "/merge_requests", Status: 200, Body: "[]"})
	lagged, created, err := crs.Ensure(ctx, n)
	if err != nil || created || lagged.Number != 1 {
		t.Fatalf("Ensure after a lagging listing: %+v created %v, %v", lagged, created, err)
	}
	if mrs := f.MergeRequests(testProject); len(mrs) != 1 || mrs[0].Body != "body" || mrs[0].Author != "daokit-bot" {
		t.Fatalf("merge requests on GitLab: %+v", mrs)
	}
	posts := 0
	for _, r := range f.Requests() {
		if r.Header.Get("PRIVATE-TOKEN") != glToken || r.Header.Get("Authorization") != "" {
			t.Fatalf("token not (only) in PRIVATE-TOKEN: %s %s", r.Method, r.Path)
		}
		if r.Method == "POST" {
			posts++
			if r.Path != "/projects/acme%2Fplatform%2Fapp/merge_requests" {
				t.Fatalf("POST to %s", r.Path)
			}
		}
	}
	if posts != 2 {
		t.Fatalf("%d POSTs, want 2 (the first, and the one answered 409)", posts)
	}
	f.Inject(fakegitlab.Fault{Method: "POST", PathSuffix: "/merge_requests", Status: 403, Body: `{"message":"403 Forbidden"}`})
	other := n
	other.Head = "daokit/T/R2/run"
	_, _, err = crs.Ensure(ctx, other)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 403 || ae.Service != "gitlab" || strings.Contains(err.Error(), glToken) {
		t.Fatalf("refused Ensure: %v", err)
	}
}

// Checks reads the newest pipeline of the merge request's head commit
// in GitHub's words.
func TestMergeRequestChecksReadThePipeline(t *testing.T) {
	f := newGitLabFake(t, fakegitlab.Options{Branch: func(_, b string) (string, bool) { return "abc123", true }})
	crs, err := OpenChangeRequests(PullRequestsConfig{Service: GitLabActor, Repo: testProject, APIURL: f.URL, Token: glToken})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mr, _, err := crs.Ensure(ctx, NewPull{Title: "t", Head: "b", Base: "main"})
	if err != nil || mr.Head.SHA != "abc123" {
		t.Fatalf("Ensure: %+v, %v", mr, err)
	}
	for _, step := range []struct{ status, want string }{
		{"", ""}, {"running", "pending"}, {"failed", "failure"}, {"canceled", "failure"}, {"skipped", ""}, {"success", "success"},
	} {
		if step.status != "" {
			f.SetPipeline(testProject, "abc123", step.status)
		}
		f.SetPipeline(testProject, "other", "failed")
		if got, err := crs.Checks(ctx, mr.Head.SHA); err != nil || got != step.want {
			t.Errorf("pipeline %q: Checks = %q, %v; want %q", step.status, got, err, step.want)
		}
	}
}

// Review comments become findings alike on both forges: on a line as
// "path:line: text (@who)" ordered by file and line, then the others;
// daokit's own (its marker), empty review bodies, GitHub's pending and
// dismissed reviews and GitLab's system notes are left out; at most
// MaxReviewFindings, each on one line.
func TestReviewCommentsBecomeFindingsOnBothForges(t *testing.T) {
	ctx := context.Background()
	own := withMarker("daokit summary", marker{Actor: "controller"})
	want := []string{
		"api/handler.go:7: check the error (@ann)",
		"api/handler.go:42: empty body is not handled (@bob)",
		"api/handler.go:42: and add a test (@ann)",
		"readme.md:3: typo (@bob)",
		"please split this change (@ann)",
	}

	gh := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{"tok": {Login: "octo", Push: true}}, "octo/hello")
	defer gh.Close()
	prs, err := OpenChangeRequests(PullRequestsConfig{Repo: "octo/hello", APIURL: gh.URL, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	pr, _, err := prs.Ensure(ctx, NewPull{Title: "t", Head: "b", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	gh.LineComment("octo/hello", pr.Number, "bob", "readme.md", 3, "typo")
	gh.LineComment("octo/hello", pr.Number, "bob", "api/handler.go", 42, "empty body\n is not handled")
	gh.LineComment("octo/hello", pr.Number, "ann", "api/handler.go", 7, "check the error")
	gh.LineComment("octo/hello", pr.Number, "octo", "api/handler.go", 1, own)
	gh.LineComment("octo/hello", pr.Number, "ann", "api/handler.go", 42, "and add a test")
	gh.Review("octo/hello", pr.Number, "ann", "CHANGES_REQUESTED", "please split this change")
	gh.Review("octo/hello", pr.Number, "bob", "COMMENTED", "")
	gh.Review("octo/hello", pr.Number, "carl", "PENDING", "draft thoughts")
	gh.Review("octo/hello", pr.Number, "dan", "DISMISSED", "withdrawn")
	cs, err := prs.ReviewComments(ctx, pr.Number)
	if got := ReviewFindings(cs); err != nil || !slices.Equal(got, want) {
		t.Errorf("GitHub findings %v, %v\nwant %v", got, err, want)
	}

	f := newGitLabFake(t, fakegitlab.Options{})
	mrs, err := OpenChangeRequests(PullRequestsConfig{Service: GitLabActor, Repo: testProject, APIURL: f.URL, Token: glToken})
	if err != nil {
		t.Fatal(err)
	}
	mr, _, err := mrs.Ensure(ctx, NewPull{Title: "t", Head: "b", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	f.ReviewNote(testProject, mr.Number, "ann", "please split this change", "", 0, 0)
	f.ReviewNote(testProject, mr.Number, "bob", "typo", "readme.md", 3, 0)
	first := f.ReviewNote(testProject, mr.Number, "bob", "empty body is not handled", "api/handler.go", 42, 0)
	f.ReviewNote(testProject, mr.Number, "ann", "check the error", "api/handler.go", 7, 0)
	f.ReviewNote(testProject, mr.Number, "daokit-bot", own, "", 0, 0)
	f.ReviewNote(testProject, mr.Number, "ann", "and add a test", "", 0, first) // a reply in the line's thread
	cs, err = mrs.ReviewComments(ctx, mr.Number)
	if got := ReviewFindings(cs); err != nil || !slices.Equal(got, want) {
		t.Errorf("GitLab findings %v, %v\nwant %v", got, err, want)
	}

	var many []ReviewComment
	for i := range MaxReviewFindings + 5 {
		many = append(many, ReviewComment{ID: int64(100 - i), Author: "ann", Path: "a.go", Line: 1, Body: strings.Repeat("x", 2000)})
	}
	got := ReviewFindings(many)
	if len(got) != MaxReviewFindings || len([]rune(got[0])) > maxFindingRunes+40 || !slices.Equal(got, ReviewFindings(many)) {
		t.Errorf("%d findings, the first %d runes", len(got), len([]rune(got[0])))
	}
}
