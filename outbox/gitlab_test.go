package outbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegitlab"
)

const (
	testProject = "acme/platform/app"
	glToken     = "glpat-secretTOKENvalue0123456789"
)

func newGitLabFake(t testing.TB, o fakegitlab.Options) *fakegitlab.Server {
	t.Helper()
	f := fakegitlab.New(o, map[string]fakegitlab.Token{
		glToken:    {Username: "daokit-bot", Level: 30},
		"ro-token": {Username: "reader", Level: 10},
	}, []string{"ann", "bob"}, testProject)
	t.Cleanup(f.Close)
	return f
}

// openGL opens the backend on the stand-in; waits records the rate
// limit and 5xx waits instead of sleeping.
func openGL(t testing.TB, f *fakegitlab.Server, mirror string, wake time.Duration) (*GitLab, *ghWaits) {
	t.Helper()
	g, err := OpenGitLab(context.Background(), GitLabConfig{Repo: testProject, APIURL: f.URL, Token: glToken, Mirror: mirror,
		Options: Options{WakeInterval: wake}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, recordWaits(g.c, g.RateWait)
}

func glMirror(t testing.TB) string {
	return filepath.Join(t.TempDir(), "gitlab", "acme", "platform", "app.db")
}

// The same Changes give the same events, issues and comments on GitLab
// as on SQLite; on GitLab the project is addressed by its URL-encoded
// path, the token is in PRIVATE-TOKEN only, labels are set with
// add_labels/remove_labels, and a Lead's claim is its assignee label.
func TestGitLabMapsOntoTheMailboxAsSQLiteDoes(t *testing.T) {
	f := newGitLabFake(t, fakegitlab.Options{})
	g, _ := openGL(t, f, glMirror(t), 20*time.Millisecond)
	s := openTest(t)
	changes := mailboxScript(
		Change{Actor: "ann", Ops: []Op{{Kind: OpReopen, Issue: 1}, {Kind: OpAssign, Issue: 1, Assignee: "bob"}}},
		Change{Actor: "ann", Ops: []Op{{Kind: OpAssign, Issue: 1, Assignee: ""}}},
	)
	applyAlike(t, "gitlab", s, g, changes)
	mustSync(t, g) // the system notes GitLab wrote are not comments
	sameEventsAndIssue(t, "gitlab", s, g, 1)
	labels, assignees, state, _ := f.Issue(testProject, 1)
	if state != "opened" || len(assignees) != 0 || slices.Contains(labels, "assignee:lead:backend") || !slices.Contains(labels, "assignee:lead:qa") {
		t.Fatalf("on GitLab: %v %v %s", labels, assignees, state)
	}
	if bodies := f.Notes(testProject, 1); len(bodies) != 2 || !strings.Contains(bodies[1], `<!-- daokit {"actor":"lead:backend","reader":"lead:backend","trigger":"claim:1"} -->`) {
		t.Fatalf("notes on GitLab: %q", bodies)
	}
	assigned := false
	for _, r := range f.Requests() {
		if !strings.HasPrefix(r.Path, "/projects/acme%2Fplatform%2Fapp") && !strings.HasPrefix(r.Path, "/user") {
			t.Fatalf("request to %s", r.Path)
		}
		if r.Header.Get("PRIVATE-TOKEN") != glToken || r.Header.Get("Authorization") != "" {
			t.Fatalf("token not (only) in PRIVATE-TOKEN: %v", r.Header)
		}
		if strings.Contains(r.Path+r.Query+r.Body, glToken) {
			t.Fatalf("the token is in %s %s?%s %s", r.Method, r.Path, r.Query, r.Body)
		}
		assigned = assigned || strings.Contains(r.Body, `"assignee_ids":[`) && !strings.Contains(r.Body, `"assignee_ids":[]`)
	}
	if !assigned {
		t.Fatal("bob was not assigned by his GitLab user id")
	}
}

// A person's work on GitLab becomes events: their issue and note in
// their name, label changes by GitLabActor; GitLab's system notes are
// no comments, and daokit's own note read back is not a second event.
// An idle team then costs no rate limit.
func TestGitLabSyncReadsPeopleAndIdleIsFree(t *testing.T) {
	ctx := context.Background()
	f := newGitLabFake(t, fakegitlab.Options{})
	mirror := glMirror(t)
	g, _ := openGL(t, f, mirror, 20*time.Millisecond)
	n := f.OpenIssue(testProject, "ann", "add search", "please", "to:backend")
	mustSync(t, g)
	mustApply(t, g, Change{Actor: "lead:backend", Ops: []Op{{Kind: OpComment, Issue: n, Body: "on it"}}})
	f.Comment(testProject, n, "ann", "@backend thanks")
	f.SetLabels(testProject, n, "to:backend", "priority")
	mustSync(t, g)
	mustSync(t, g)
	got := shapes(allEvents(t, g))
	want := []shape{
		{EventOpened, "ann", "", ""},
		{EventCommented, "lead:backend", "", "on it"},
		{EventCommented, "ann", "", "@backend thanks"},
		{EventLabeled, GitLabActor, "priority", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n got %+v\nwant %+v", got, want)
	}
	cs, _ := g.Comments(ctx, n)
	if len(cs) != 2 || cs[0].Author != "lead:backend" || cs[0].Body != "on it" {
		t.Fatalf("comments %+v", cs)
	}
	// The watermark is past every change now: the next listings are
	// read once, then every later read is a 304.
	mustSync(t, g)
	before := f.Charged()
	for range 3 {
		mustSync(t, g)
	}
	g.Close()
	g2, _ := openGL(t, f, mirror, 20*time.Millisecond)
	mustSync(t, g2)
	if got := f.Charged() - before; got != 0 {
		for _, r := range f.Requests() {
			t.Log(r.Method, r.Path, r.Query, r.Status)
		}
		t.Fatalf("idle syncs cost %d requests", got)
	}
}

// Listings are read whole across pages, by X-Next-Page when GitLab
// leaves Link out, and a note GitLab leaves out of its first listing is
// read by the next one.
func TestGitLabPaginatesAndCatchesLateNotes(t *testing.T) {
	ctx := context.Background()
	f := newGitLabFake(t, fakegitlab.Options{PageSize: 2, NoteLag: 1, NoLink: true})
	g, _ := openGL(t, f, glMirror(t), 20*time.Millisecond)
	for i := range 5 {
		n := f.OpenIssue(testProject, "ann", fmt.Sprintf("issue %d", i), "")
		for j := range 3 {
			f.Comment(testProject, n, "bob", fmt.Sprintf("note %d.%d", i, j))
		}
	}
	mustSync(t, g)
	f.Comment(testProject, 1, "bob", "late")
	mustSync(t, g) // the late note is missing from this listing
	mustSync(t, g)
	for n := int64(1); n <= 5; n++ {
		cs, err := g.Comments(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if n == 1 {
			want = 4
		}
		if len(cs) != want {
			t.Fatalf("issue %d has %d comments, want %d", n, len(cs), want)
		}
	}
	paged := false
	for _, r := range f.Requests() {
		paged = paged || strings.Contains(r.Query, "page=3")
	}
	if !paged {
		t.Fatal("no third page was read")
	}
}

// GitLab's 429s are waited out as it asks (Retry-After; RateLimit-Reset
// of a spent quota), 5xx are retried with backoff, each wait shown
// while it lasts; a 403 is a permission error, not a wait.
func TestGitLabWaitsOutRateLimitsAnd5xx(t *testing.T) {
	f := newGitLabFake(t, fakegitlab.Options{})
	g, w := openGL(t, f, glMirror(t), 20*time.Millisecond)
	reset := time.Now().Add(90 * time.Second).Unix()
	f.Inject(fakegitlab.Fault{PathSuffix: "/issues", Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "30"}, Body: `{"message":"Retry later"}`})
	f.Inject(fakegitlab.Fault{PathSuffix: "/issues", Status: http.StatusTooManyRequests,
		Header: map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": strconv.FormatInt(reset, 10)}, Body: `{"message":"Retry later"}`})
	f.Inject(fakegitlab.Fault{PathSuffix: "/issues", Status: http.StatusBadGateway, Times: 2})
	mustSync(t, g)
	near := func(d, want time.Duration) bool { return d > want-5*time.Second && d <= want }
	if len(w.waits) != 4 || !near(w.waits[0], 30*time.Second) || !near(w.waits[1], 90*time.Second) {
		t.Fatalf("waits %v", w.waits)
	}
	if w.waits[2] != time.Millisecond || w.waits[3] != 2*time.Millisecond {
		t.Fatalf("5xx backoff %v", w.waits[2:])
	}
	for i, why := range []string{"retry-after", "primary"} {
		if w.shown[i].Reason != why || w.shown[i].Until.IsZero() {
			t.Fatalf("wait %d shown as %+v", i, w.shown[i])
		}
	}
	if rw := g.RateWait(); !rw.Until.IsZero() {
		t.Fatalf("a wait is still shown after success: %+v", rw)
	}
	f.Inject(fakegitlab.Fault{PathSuffix: "/issues", Status: http.StatusForbidden, Body: `{"message":"403 Forbidden"}`})
	var ae *APIError
	if err := g.Sync(context.Background()); !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Service != "gitlab" {
		t.Fatalf("403: %v", err)
	}
}

// A trigger is answered once on GitLab too (see triggerAnsweredOnce):
// there the comments are notes and a label change is an issue edit.
func TestGitLabTriggerAnsweredOnceAcrossCrashAndLostMirror(t *testing.T) {
	f := newGitLabFake(t, fakegitlab.Options{})
	triggerAnsweredOnce(t, forgeRig{
		mirror: glMirror(t),
		open:   func(m string) *Forge { g, _ := openGL(t, f, m, 20*time.Millisecond); return g },
		openIssue: func(title string, labels ...string) int64 {
			return f.OpenIssue(testProject, "ann", title, "", labels...)
		},
		comments: func(n int64) []string { return f.Notes(testProject, n) },
		labels:   func(n int64) []string { l, _, _, _ := f.Issue(testProject, n); return l },
		failLabel: func() {
			f.Inject(fakegitlab.Fault{Method: http.MethodPut, PathSuffix: "/issues/1", Status: http.StatusBadRequest, Body: `{"message":{"labels":["is invalid"]}}`})
		},
	})
}

// CheckGitLab names each set-up problem with a GITLAB_ code: no token,
// a refused token, no such project, a user below Reporter; a
// self-hosted API root is used as given.
func TestCheckGitLabNamesTheProblem(t *testing.T) {
	ctx := context.Background()
	f := newGitLabFake(t, fakegitlab.Options{Prefix: "/gitlab/api/v4"})
	cfg := func(repo, token string) GitLabConfig { return GitLabConfig{Repo: repo, APIURL: f.URL, Token: token} }
	if err := CheckGitLab(ctx, cfg(testProject, glToken)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  GitLabConfig
		code string
	}{
		{cfg(testProject, ""), GitLabNoToken},
		{cfg("just-a-name", glToken), GitLabBadRepo},
		{cfg(testProject, "glpat-wrong"), GitLabBadToken},
		{cfg("acme/other", glToken), GitLabNoRepo},
		{cfg(testProject, "ro-token"), GitLabReadOnly},
	} {
		err := CheckGitLab(ctx, c.cfg)
		var ge *GitHubError
		if !errors.As(err, &ge) || ge.Code != c.code || ge.API != f.URL {
			t.Fatalf("%s %q: %v, want %s", c.cfg.Repo, c.cfg.Token, err, c.code)
		}
		if strings.Contains(err.Error(), glToken) {
			t.Fatalf("the token is in %v", err)
		}
	}
}

// GitLab's webhook: a delivery is authentic when X-Gitlab-Token is the
// secret; an issue or note event reads GitLab at once, a redelivery
// (same Idempotency-Key) changes nothing and asks GitLab nothing, and
// an event about something else is acknowledged only.
func TestGitLabWebhookChecksTheTokenAndIsReplaySafe(t *testing.T) {
	ctx := context.Background()
	f := newGitLabFake(t, fakegitlab.Options{})
	g, _ := openGL(t, f, glMirror(t), 20*time.Millisecond)
	secret := []byte("hook-secret")
	h, err := g.WebhookHandler(secret)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, g)
	srv := httptest.NewServer(h)
	defer srv.Close()
	deliver := func(key, event, token string) int {
		return postHook(t, srv.URL, []byte(`{"object_kind":"issue"}`), map[string]string{"Idempotency-Key": key, "X-Gitlab-Event": event, "X-Gitlab-Token": token})
	}
	n := f.OpenIssue(testProject, "ann", "new", "", "to:backend")
	if st := deliver("k-1", "Issue Hook", "hook-secreT"); st != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", st)
	}
	if _, err := g.Issue(ctx, n); !errors.Is(err, ErrNotFound) {
		t.Fatal("a refused delivery synced")
	}
	sent := len(f.Requests())
	if st := deliver("k-0", "Pipeline Hook", string(secret)); st != http.StatusAccepted || len(f.Requests()) != sent {
		t.Fatalf("a pipeline event: %d, %d requests", st, len(f.Requests())-sent)
	}
	if st := deliver("k-1", "Issue Hook", string(secret)); st != http.StatusAccepted {
		t.Fatalf("good delivery: %d", st)
	}
	if _, err := g.Issue(ctx, n); err != nil {
		t.Fatal(err)
	}
	sent = len(f.Requests())
	h1, _ := g.Head(ctx)
	if st := deliver("k-1", "Issue Hook", string(secret)); st != http.StatusOK {
		t.Fatalf("replay: %d", st)
	}
	if h2, _ := g.Head(ctx); h2 != h1 || len(f.Requests()) != sent {
		t.Fatalf("the replay changed the mirror (%d→%d) or asked GitLab (%d requests)", h1, h2, len(f.Requests())-sent)
	}
}
