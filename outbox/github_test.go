package outbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
)

const (
	testRepo = "acme/app"
	ghToken  = "ghp_secretTOKENvalue0123456789"
	ghPerson = "ann"
)

func newFake(t *testing.T, o fakegithub.Options) *fakegithub.Server {
	t.Helper()
	f := fakegithub.New(o, map[string]fakegithub.Token{
		ghToken:    {Login: "daokit-bot", Push: true},
		"ro-token": {Login: "reader"},
	}, testRepo)
	t.Cleanup(f.Close)
	return f
}

// openGH opens the backend on the stand-in; waits records the rate
// limit and 5xx waits instead of sleeping.
func openGH(t *testing.T, f *fakegithub.Server, mirror string) (*GitHub, *ghWaits) {
	t.Helper()
	g, err := OpenGitHub(context.Background(), GitHubConfig{Repo: testRepo, APIURL: f.URL, Token: ghToken, Mirror: mirror,
		Options: Options{WakeInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, recordWaits(g.c, g.RateWait)
}

func mirrorPath(t *testing.T) string { return filepath.Join(t.TempDir(), "github", "acme", "app.db") }

func mustSync(t *testing.T, g *GitHub) {
	t.Helper()
	if err := g.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func allEvents(t *testing.T, b Backend) []Event {
	t.Helper()
	evs, err := b.Events(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// shape is an event without its ids and time: what must be the same on
// both backends.
type shape struct {
	Kind         EventKind
	Actor, Value string
	Body         string
}

func shapes(evs []Event) []shape {
	out := make([]shape, len(evs))
	for i, e := range evs {
		out[i] = shape{e.Kind, e.Actor, e.Value, e.Body}
	}
	return out
}

// The same Changes give the same events, issues and comments on GitHub
// as on SQLite: the Leads cannot tell the backends apart.
func TestGitHubMapsOntoTheMailboxAsSQLiteDoes(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	s := openTest(t)
	changes := mailboxScript(
		Change{Actor: "ann", Ops: []Op{{Kind: OpReopen, Issue: 1}, {Kind: OpAssign, Issue: 1, Assignee: ""}}},
	)
	applyAlike(t, "github", s, g, changes)
	sameEventsAndIssue(t, "github", s, g, 1)
	cs, _ := s.Comments(ctx, 1)
	cg, _ := g.Comments(ctx, 1)
	if len(cs) != len(cg) || cs[1].Author != cg[1].Author || cs[1].Body != cg[1].Body {
		t.Fatalf("comments differ:\nsqlite %+v\ngithub %+v", cs, cg)
	}
	// On GitHub the Lead's claim is its assignee label, and its comment
	// carries the hidden marker.
	labels, _, state, _ := f.Issue(testRepo, 1)
	if state != "open" || slices.Contains(labels, "assignee:lead:backend") || !slices.Contains(labels, "assignee:lead:qa") {
		t.Fatalf("on GitHub: %v %s", labels, state)
	}
	if bodies := f.Comments(testRepo, 1); len(bodies) != 2 || !strings.Contains(bodies[1], `<!-- daokit {"actor":"lead:backend","reader":"lead:backend","trigger":"claim:1"} -->`) {
		t.Fatalf("comments on GitHub: %q", bodies)
	}
	if n, _ := g.Triggers(ctx, "lead:backend"); n != 1 {
		t.Fatalf("triggers %d", n)
	}
	if c, _ := g.Cursor(ctx, "lead:backend"); c != 2 {
		t.Fatalf("cursor %d", c)
	}
}

// A person's work on GitHub becomes events: their issue and comment in
// their name, label changes by GitHubActor; daokit's own comment read
// back is not a second event, and a pull request is not an issue.
func TestGitHubSyncReadsPeopleAndKnowsItsOwn(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	n := f.OpenIssue(testRepo, ghPerson, "add search", "please", "to:backend")
	f.OpenPullRequest(testRepo, ghPerson, "a PR")
	mustSync(t, g)
	mustApply(t, g, Change{Actor: "lead:backend", Ops: []Op{{Kind: OpComment, Issue: n, Body: "on it"}}})
	f.Comment(testRepo, n, ghPerson, "@backend thanks")
	f.SetLabels(testRepo, n, "to:backend", "priority")
	mustSync(t, g)
	mustSync(t, g)
	got := shapes(allEvents(t, g))
	want := []shape{
		{EventOpened, ghPerson, "", ""},
		{EventCommented, "lead:backend", "", "on it"},
		{EventCommented, ghPerson, "", "@backend thanks"},
		{EventLabeled, GitHubActor, "priority", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n got %+v\nwant %+v", got, want)
	}
	if _, err := g.Issue(ctx, 2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the pull request is in the mirror: %v", err)
	}
	cs, _ := g.Comments(ctx, n)
	if cs[0].Author != "lead:backend" || cs[0].Body != "on it" {
		t.Fatalf("own comment read back as %+v", cs[0])
	}
}

// An idle team costs no rate limit: once read, every later read is a
// 304, in this process and in the next one (the ETags are kept in the
// mirror).
func TestGitHubIdlePollsAreFree(t *testing.T) {
	f := newFake(t, fakegithub.Options{})
	mirror := mirrorPath(t)
	f.OpenIssue(testRepo, ghPerson, "one", "", "to:backend")
	g, _ := openGH(t, f, mirror)
	mustSync(t, g)
	// The watermark moved past the issue: the next listing has a new
	// URL, read once.
	mustSync(t, g)
	before, seen := f.Charged(), len(f.Requests())
	defer func() {
		if t.Failed() {
			for _, r := range f.Requests() {
				t.Log(r.Method, r.Path, r.Query, r.Status, r.Header.Get("If-None-Match"))
			}
		}
	}()
	for range 5 {
		mustSync(t, g)
	}
	g.Close()
	g2, _ := openGH(t, f, mirror)
	mustSync(t, g2)
	// The reopen knew who the token is: nothing was charged.
	if got := f.Charged() - before; got != 0 {
		t.Fatalf("idle syncs cost %d requests", got)
	}
	for _, r := range f.Requests()[seen:] {
		if r.Path != "/user" && r.Status != http.StatusNotModified {
			t.Fatalf("idle %s %s?%s answered %d", r.Method, r.Path, r.Query, r.Status)
		}
	}
}

// Listings are read whole across pages (Link rel="next"), and a comment
// GitHub leaves out of its first listing is read by the next one.
func TestGitHubPaginatesAndCatchesLateComments(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{PageSize: 2, CommentLag: 1})
	g, _ := openGH(t, f, mirrorPath(t))
	for i := range 5 {
		f.OpenIssue(testRepo, ghPerson, "issue "+string(rune('a'+i)), "")
	}
	mustSync(t, g)
	if l, _ := g.List(ctx, Query{}); len(l) != 5 {
		t.Fatalf("%d issues after paginated sync", len(l))
	}
	var pages int
	for _, r := range f.Requests() {
		if strings.HasSuffix(r.Path, "/issues") && strings.Contains(r.Query, "&page=") {
			pages++
		}
	}
	if pages != 2 {
		for _, r := range f.Requests() {
			t.Log(r.Method, r.Path, r.Query, r.Status)
		}
		t.Fatalf("followed %d next links, want 2", pages)
	}
	f.Comment(testRepo, 3, ghPerson, "late")
	mustSync(t, g)
	if cs, _ := g.Comments(ctx, 3); len(cs) != 0 {
		t.Fatal("the stand-in did not hold the comment back")
	}
	mustSync(t, g)
	if cs, _ := g.Comments(ctx, 3); len(cs) != 1 || cs[0].Body != "late" {
		t.Fatalf("late comment: %+v", cs)
	}
}

// A trigger is answered once on GitHub across a crash, a replay and a
// lost mirror (see triggerAnsweredOnce).
func TestGitHubTriggerAnsweredOnceAcrossCrashAndLostMirror(t *testing.T) {
	f := newFake(t, fakegithub.Options{})
	triggerAnsweredOnce(t, forgeRig{
		mirror: mirrorPath(t),
		open:   func(m string) *Forge { g, _ := openGH(t, f, m); return g },
		openIssue: func(title string, labels ...string) int64 {
			return f.OpenIssue(testRepo, ghPerson, title, "", labels...)
		},
		comments: func(n int64) []string { return f.Comments(testRepo, n) },
		labels:   func(n int64) []string { l, _, _, _ := f.Issue(testRepo, n); return l },
		failLabel: func() {
			f.Inject(fakegithub.Fault{Method: http.MethodPost, PathSuffix: "/labels", Status: http.StatusUnprocessableEntity, Body: `{"message":"Validation Failed"}`})
		},
	})
}

// A marker in a stranger's comment is text: nobody can answer a Lead's
// trigger for it or speak as a Lead.
func TestGitHubMarkerOnlyFromTheTokensUser(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	n := f.OpenIssue(testRepo, ghPerson, "x", "")
	f.Comment(testRepo, n, ghPerson, withMarker("hi", marker{Actor: "lead:backend", Reader: "lead:backend", Trigger: "claim:1"}))
	mustSync(t, g)
	cs, _ := g.Comments(ctx, n)
	if cs[0].Author != ghPerson {
		t.Fatalf("a stranger spoke as %s", cs[0].Author)
	}
	if k, _ := g.Triggers(ctx, "lead:backend"); k != 0 {
		t.Fatal("a stranger's marker recorded a trigger")
	}
}

// Rate limits are waited out as GitHub asks (Retry-After; the reset of
// a spent quota; a minute for a secondary limit), 5xx are retried with
// backoff, and each wait is shown while it lasts.
func TestGitHubWaitsOutRateLimitsAnd5xx(t *testing.T) {
	f := newFake(t, fakegithub.Options{})
	g, w := openGH(t, f, mirrorPath(t))
	reset := time.Now().Add(90 * time.Second).Unix()
	f.Inject(fakegithub.Fault{PathSuffix: "/issues", Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "30"}})
	f.Inject(fakegithub.Fault{PathSuffix: "/issues", Status: http.StatusForbidden,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset, 10)}, Body: `{"message":"API rate limit exceeded"}`})
	f.Inject(fakegithub.Fault{PathSuffix: "/issues", Status: http.StatusForbidden, Body: `{"message":"You have exceeded a secondary rate limit."}`})
	f.Inject(fakegithub.Fault{PathSuffix: "/issues", Status: http.StatusBadGateway, Times: 2})
	mustSync(t, g)
	if len(w.waits) != 5 {
		t.Fatalf("waits %v", w.waits)
	}
	near := func(d, want time.Duration) bool { return d > want-5*time.Second && d <= want }
	if !near(w.waits[0], 30*time.Second) || !near(w.waits[1], 90*time.Second) || !near(w.waits[2], time.Minute) {
		t.Fatalf("waits %v", w.waits)
	}
	if w.waits[3] != time.Millisecond || w.waits[4] != 2*time.Millisecond {
		t.Fatalf("5xx backoff %v", w.waits[3:])
	}
	for i, why := range []string{"retry-after", "primary", "secondary"} {
		if w.shown[i].Reason != why || w.shown[i].Until.IsZero() {
			t.Fatalf("wait %d shown as %+v", i, w.shown[i])
		}
	}
	if rw := g.RateWait(); !rw.Until.IsZero() {
		t.Fatalf("a wait is still shown after success: %+v", rw)
	}
}

// GitHub Enterprise Server serves the API under /api/v3; the token is
// sent on every request and is in nothing daokit keeps or says.
func TestGitHubEnterpriseAndTheTokenStaysInTheHeader(t *testing.T) {
	f := newFake(t, fakegithub.Options{Prefix: "/api/v3"})
	mirror := mirrorPath(t)
	g, _ := openGH(t, f, mirror)
	f.OpenIssue(testRepo, ghPerson, "x", "")
	mustSync(t, g)
	f.Inject(fakegithub.Fault{Method: http.MethodPost, Status: http.StatusUnprocessableEntity, Body: `{"message":"Validation Failed"}`})
	_, err := g.Apply(context.Background(), Change{Actor: "lead:backend", Ops: []Op{{Kind: OpComment, Issue: 1, Body: "x"}}})
	if err == nil || strings.Contains(err.Error(), ghToken) {
		t.Fatalf("error %v", err)
	}
	g.Close()
	for _, r := range f.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+ghToken {
			t.Fatalf("%s %s without the token", r.Method, r.Path)
		}
		if strings.Contains(r.Query, ghToken) || strings.Contains(r.Body, ghToken) {
			t.Fatalf("token in %s %s", r.Method, r.Path)
		}
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(mirror), "*"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(ghToken)) {
			t.Fatalf("token in %s", p)
		}
	}
}

// A Worker (WorkerEnv) opens the mirror read-only, with no token, and
// cannot write through it.
func TestGitHubWorkerIsReadOnly(t *testing.T) {
	f := newFake(t, fakegithub.Options{})
	mirror := mirrorPath(t)
	g, _ := openGH(t, f, mirror)
	g.Close()
	t.Setenv(WorkerEnv, "backend")
	w, err := OpenGitHub(context.Background(), GitHubConfig{Repo: testRepo, APIURL: f.URL, Mirror: mirror})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Apply(context.Background(), Change{Actor: "x", Ops: []Op{{Kind: OpOpen, Title: "t"}}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("worker wrote: %v", err)
	}
}

// daokit check's one request tells a good set-up from each bad one.
func TestCheckGitHubNamesTheProblem(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	gone := fakegithub.New(fakegithub.Options{}, nil)
	gone.Close()
	cases := []struct {
		name string
		cfg  GitHubConfig
		want string
	}{
		{"good", GitHubConfig{Repo: testRepo, APIURL: f.URL, Token: ghToken}, ""},
		{"no token", GitHubConfig{Repo: testRepo, APIURL: f.URL}, GitHubNoToken},
		{"bad repo", GitHubConfig{Repo: "app", APIURL: f.URL, Token: ghToken}, GitHubBadRepo},
		{"refused token", GitHubConfig{Repo: testRepo, APIURL: f.URL, Token: "nope"}, GitHubBadToken},
		{"missing repository", GitHubConfig{Repo: "acme/gone", APIURL: f.URL, Token: ghToken}, GitHubNoRepo},
		{"read-only token", GitHubConfig{Repo: testRepo, APIURL: f.URL, Token: "ro-token"}, GitHubReadOnly},
		{"unreachable", GitHubConfig{Repo: testRepo, APIURL: gone.URL, Token: ghToken}, GitHubUnreachable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckGitHub(ctx, c.cfg)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ge *GitHubError
			if !errors.As(err, &ge) || ge.Code != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
			if strings.Contains(err.Error(), ghToken) {
				t.Fatal("the token is in the error")
			}
		})
	}
	before := len(f.Requests())
	if err := CheckGitHub(ctx, GitHubConfig{Repo: testRepo, APIURL: f.URL, Token: ghToken}); err != nil || len(f.Requests())-before != 1 {
		t.Fatalf("a check took %d requests (%v)", len(f.Requests())-before, err)
	}
}

// A wait longer than the backend blocks for is not slept through: Wait
// returns at its bounded interval (a Lead keeps beating), Apply fails
// with ErrRateLimited without a request, and the wait is shown, to
// other processes of the mirror too.
func TestGitHubLongRateLimitDoesNotBlock(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	mirror := mirrorPath(t)
	g, _ := openGH(t, f, mirror)
	g.c.maxBlock = time.Second
	f.Inject(fakegithub.Fault{PathSuffix: "/issues", Status: http.StatusForbidden,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}})
	if err := g.Wait(ctx, 0); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	sent := len(f.Requests())
	_, err := g.Apply(ctx, Change{Actor: "lead:backend", Ops: []Op{{Kind: OpOpen, Title: "x"}}})
	if !errors.Is(err, ErrRateLimited) || len(f.Requests()) != sent {
		t.Fatalf("Apply during the wait: %v, %d requests sent", err, len(f.Requests())-sent)
	}
	if w := g.RateWait(); w.Reason != "primary" || time.Until(w.Until) < 50*time.Minute {
		t.Fatalf("shown %+v", w)
	}
	other, err := OpenGitHub(ctx, GitHubConfig{Repo: testRepo, APIURL: f.URL, Mirror: mirror, Options: Options{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if w := other.RateWait(); w.Reason != "primary" {
		t.Fatalf("another process sees %+v", w)
	}
}

// A listing GitHub serves from before a write the Lead just made (its
// listings lag its writes) does not undo the write in the mirror.
func TestGitHubStaleListingDoesNotUndoAWrite(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	n := f.OpenIssue(testRepo, ghPerson, "x", "", "to:backend")
	mustSync(t, g)
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/repos/"+testRepo+"/issues?state=all", nil)
	req.Header.Set("Authorization", "Bearer "+ghToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustApply(t, g, Change{Actor: "lead:backend", Ops: []Op{{Kind: OpClose, Issue: n}, {Kind: OpLabel, Issue: n, Labels: []string{"state:done"}}}})
	head, _ := g.Head(ctx)
	f.Inject(fakegithub.Fault{Method: http.MethodGet, PathSuffix: "/issues", Status: http.StatusOK, Body: string(old), Header: map[string]string{"ETag": `"stale"`}})
	mustSync(t, g)
	if h, _ := g.Head(ctx); h != head {
		t.Fatalf("the stale listing made %d events: %+v", h-head, allEvents(t, g)[head:])
	}
	if is, _ := g.Issue(ctx, n); !is.Closed || !is.HasLabel("state:done") {
		t.Fatalf("the write was undone: %+v", is)
	}
}

// A webhook delivery signed with the secret reads GitHub at once (a
// Lead waiting on the mirror wakes); a bad signature is refused, and a
// delivery replayed changes nothing and costs no request.
func TestGitHubWebhookWakesOnceAndIsReplaySafe(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	secret := []byte("hook-secret")
	h, err := g.WebhookHandler(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WebhookHandler(nil); !errors.Is(err, ErrNoWebhookSecret) {
		t.Fatalf("no secret: %v", err)
	}
	mustSync(t, g)
	srv := httptest.NewServer(h)
	defer srv.Close()
	deliver := func(id, event, sig string, body []byte) int {
		return postHook(t, srv.URL, body, map[string]string{"X-GitHub-Delivery": id, "X-GitHub-Event": event, "X-Hub-Signature-256": sig})
	}
	woke := make(chan error, 1)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	head, _ := g.Head(ctx)
	// A reader of the mirror in another process waits with a long wake.
	reader, err := OpenSQLite(g.Path(), Options{ReadOnly: true, WakeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	go func() { woke <- reader.Wait(wctx, head) }()
	n := f.OpenIssue(testRepo, ghPerson, "new", "", "to:backend")
	body := []byte(`{"action":"opened","issue":{"number":1}}`)
	if st := deliver("d-1", "issues", "sha256=00", body); st != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d", st)
	}
	if _, err := g.Issue(ctx, n); !errors.Is(err, ErrNotFound) {
		t.Fatal("a refused delivery synced")
	}
	if st := deliver("d-1", "issues", fakegithub.SignWebhook(secret, body), body); st != http.StatusAccepted {
		t.Fatalf("good delivery: %d", st)
	}
	if err := <-woke; err != nil {
		t.Fatalf("the waiting reader did not wake: %v", err)
	}
	if _, err := g.Issue(ctx, n); err != nil {
		t.Fatal(err)
	}
	sent := len(f.Requests())
	h1, _ := g.Head(ctx)
	if st := deliver("d-1", "issues", fakegithub.SignWebhook(secret, body), body); st != http.StatusOK {
		t.Fatalf("replay: %d", st)
	}
	if h2, _ := g.Head(ctx); h2 != h1 || len(f.Requests()) != sent {
		t.Fatalf("the replay changed the mirror (%d→%d) or asked GitHub (%d requests)", h1, h2, len(f.Requests())-sent)
	}
}

// A change that the rest of the quota cannot finish is not begun: it
// waits for the reset (here longer than the backend blocks for, so it
// fails with ErrRateLimited) without writing anything.
func TestGitHubChangeNotBegunWithoutQuota(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, fakegithub.Options{})
	g, _ := openGH(t, f, mirrorPath(t))
	g.c.maxBlock = time.Second
	n := f.OpenIssue(testRepo, ghPerson, "x", "", "to:backend")
	mustSync(t, g)
	reset := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	f.Inject(fakegithub.Fault{Method: http.MethodGet, PathSuffix: "/issues", Status: http.StatusOK, Body: "[]",
		Header: map[string]string{"X-RateLimit-Remaining": "2", "X-RateLimit-Reset": reset, "ETag": `"low"`}})
	f.Inject(fakegithub.Fault{Method: http.MethodGet, PathSuffix: "/comments", Status: http.StatusOK, Body: "[]",
		Header: map[string]string{"X-RateLimit-Remaining": "1", "X-RateLimit-Reset": reset, "ETag": `"low"`}})
	sent := len(f.Requests())
	_, err := g.Apply(ctx, Change{Actor: "lead:backend", Ops: []Op{{Kind: OpComment, Issue: n, Body: "a"}, {Kind: OpLabel, Issue: n, Labels: []string{"state:done"}}}})
	if !errors.Is(err, ErrRateLimited) {
		t.Fatalf("Apply: %v", err)
	}
	for _, r := range f.Requests()[sent:] {
		if r.Method != http.MethodGet {
			t.Fatalf("a write was sent: %s %s", r.Method, r.Path)
		}
	}
	if len(f.Comments(testRepo, n)) != 0 {
		t.Fatal("a comment was posted")
	}
}
