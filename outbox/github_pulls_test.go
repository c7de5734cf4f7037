package outbox

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
)

// Ensure opens a branch's pull request once: a second call finds it;
// a POST answered 422 because the pull request exists (opened by a
// request whose answer was lost) finds it too; a refusal is an
// *APIError that names no token.
func TestEnsureOpensOnePullRequestPerBranch(t *testing.T) {
	gh := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{"s3cr3t-tok": {Login: "octo", Push: true}}, "octo/hello")
	defer gh.Close()
	prs, err := NewPullRequests(PullRequestsConfig{Repo: "octo/hello", APIURL: gh.URL, Token: "s3cr3t-tok"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := NewPull{Title: "daokit: x", Body: "body", Head: "daokit/T/R/run", Base: "main"}
	first, created, err := prs.Ensure(ctx, n)
	if err != nil || !created || first.Number == 0 || first.HTMLURL == "" || first.Head.Ref != n.Head || first.Base.Ref != "main" {
		t.Fatalf("first Ensure: %+v created %v, %v", first, created, err)
	}
	again, created, err := prs.Ensure(ctx, n)
	if err != nil || created || again.Number != first.Number {
		t.Fatalf("second Ensure: %+v created %v, %v", again, created, err)
	}
	// The listing misses it once (as if GitHub had not indexed it yet):
	// the POST's 422 leads to it.
	gh.Inject(fakegithub.Fault{Method: "GET", PathSuffix: "/pulls", Status: 200, Body: "[]"})
	lagged, created, err := prs.Ensure(ctx, n)
	if err != nil || created || lagged.Number != first.Number {
		t.Fatalf("Ensure after a lagging listing: %+v created %v, %v", lagged, created, err)
	}
	if got := len(gh.Pulls("octo/hello")); got != 1 {
		t.Fatalf("%d pull requests, want 1", got)
	}
	other := n
	other.Head = "daokit/T/R2/run"
	gh.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/pulls", Status: 403, Body: `{"message":"Resource not accessible by personal access token"}`})
	_, _, err = prs.Ensure(ctx, other)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 403 || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("refused Ensure: %v", err)
	}
}

// Checks decodes GitHub's recorded combined status (@octokit/fixtures
// create-status): "failure"; a commit nothing reported on is "".
func TestChecksReadsTheRecordedCombinedStatus(t *testing.T) {
	fs := loadFixtures(t, "create-status")
	rec := fs[3]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != rec.Path {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"state":"pending","statuses":[],"total_count":0}`))
			return
		}
		w.WriteHeader(rec.Status)
		_, _ = w.Write(rec.Response)
	}))
	defer srv.Close()
	prs, err := NewPullRequests(PullRequestsConfig{Repo: "octokit-fixture-org/create-status", APIURL: srv.URL, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := prs.Checks(context.Background(), "0000000000000000000000000000000000000001"); err != nil || got != "failure" {
		t.Fatalf("Checks = %q, %v; want failure", got, err)
	}
	if got, err := prs.Checks(context.Background(), "0000000000000000000000000000000000000002"); err != nil || got != "" {
		t.Fatalf("Checks of a commit without statuses = %q, %v", got, err)
	}
}
