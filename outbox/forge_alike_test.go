package outbox

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// ghWaits records a forge client's rate limit and 5xx waits instead of
// sleeping, with the RateWait shown while each lasts.
type ghWaits struct {
	mu    sync.Mutex
	waits []time.Duration
	shown []RateWait
}

// recordWaits makes c record its waits in the returned ghWaits and return
// at once; shown is the backend's RateWait, read while each wait lasts.
func recordWaits(c *apiClient, shown func() RateWait) *ghWaits {
	w := &ghWaits{}
	c.backoff, c.maxBlock = time.Millisecond, 0
	c.sleep = func(ctx context.Context, d time.Duration) error {
		w.mu.Lock()
		w.waits = append(w.waits, d)
		w.shown = append(w.shown, shown())
		w.mu.Unlock()
		return ctx.Err()
	}
	return w
}

// applyAlike applies each change to SQLite (s) and to the forge backend
// named name (g), and fails unless both answer alike.
func applyAlike(t *testing.T, name string, s, g Backend, changes []Change) {
	t.Helper()
	for i, c := range changes {
		rs := mustApply(t, s, c)
		rg := mustApply(t, g, c)
		if rs.Duplicate != rg.Duplicate || rs.Lost != rg.Lost || len(rs.Events) != len(rg.Events) || len(rs.Comments) != len(rg.Comments) || !slices.Equal(rs.Issues, rg.Issues) {
			t.Fatalf("change %d: sqlite %+v, %s %+v", i, rs, name, rg)
		}
	}
}

// sameEventsAndIssue fails unless SQLite (s) and the forge backend (g)
// hold the same events and the same issue id, as a Lead reads them.
func sameEventsAndIssue(t *testing.T, name string, s, g Backend, id int64) {
	t.Helper()
	if a, b := shapes(allEvents(t, s)), shapes(allEvents(t, g)); !slices.Equal(a, b) {
		t.Fatalf("events differ:\nsqlite %+v\n%s %+v", a, name, b)
	}
	is, _ := s.Issue(context.Background(), id)
	ig, err := g.Issue(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if is.Title != ig.Title || is.Body != ig.Body || is.Author != ig.Author || is.Assignee != ig.Assignee || is.Closed != ig.Closed || !slices.Equal(is.Labels, ig.Labels) {
		t.Fatalf("issue differs:\nsqlite %+v\n%s %+v", is, name, ig)
	}
}

// removeMirror deletes a forge backend's SQLite mirror with its WAL
// files, so that the next open rebuilds it from the forge alone.
func removeMirror(mirror string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(mirror + suffix)
	}
}

// forgeRig is one forge's stand-in as the shared tests drive it.
type forgeRig struct {
	// mirror is a fresh mirror path; open opens the backend on it.
	mirror string
	open   func(mirror string) *Forge
	// openIssue opens an issue as a person, labelled; comments are the
	// bodies of issue n's comments (notes) on the forge, labels its labels.
	openIssue func(title string, labels ...string) int64
	comments  func(n int64) []string
	labels    func(n int64) []string
	// failLabel makes the next label change fail.
	failLabel func()
}

// triggerAnsweredOnce: a Lead that dies in the middle of a trigger (its
// comment posted, its label not) redoes it without posting again; a
// replay is a Duplicate; a mirror lost and rebuilt from the forge gets
// the trigger back from the comment's marker.
func triggerAnsweredOnce(t *testing.T, r forgeRig) {
	t.Helper()
	ctx := context.Background()
	n := r.openIssue("fix", "to:backend")
	g := r.open(r.mirror)
	mustSync(t, g)
	ch := Change{Actor: "lead:backend", Reader: "lead:backend", UpTo: 1, Trigger: "claim:1", Ops: []Op{
		{Kind: OpComment, Issue: n, Body: "claimed\n\nTrigger: claim:1\nReadUpTo: 1"},
		{Kind: OpLabel, Issue: n, Labels: []string{"state:queued"}},
	}}
	r.failLabel()
	if _, err := g.Apply(ctx, ch); err == nil {
		t.Fatal("the failed label went unnoticed")
	}
	g.Close()
	g2 := r.open(r.mirror)
	if res := mustApply(t, g2, ch); res.Duplicate {
		t.Fatal("the interrupted trigger counted as answered")
	}
	if bodies := r.comments(n); len(bodies) != 1 {
		t.Fatalf("%d comments after the redo, want 1", len(bodies))
	}
	if labels := r.labels(n); !slices.Contains(labels, "state:queued") {
		t.Fatalf("labels %v", labels)
	}
	ch.UpTo = 0 // a replay from a reader that lost its cursor
	if res := mustApply(t, g2, ch); !res.Duplicate {
		t.Fatal("the replay answered the trigger again")
	}
	g2.Close()
	removeMirror(r.mirror)
	g3 := r.open(r.mirror)
	mustSync(t, g3)
	if res := mustApply(t, g3, ch); !res.Duplicate {
		t.Fatal("a rebuilt mirror answered the trigger again")
	}
	if bodies := r.comments(n); len(bodies) != 1 {
		t.Fatalf("%d comments, want 1", len(bodies))
	}
}

// mailboxScript is the life of issue 1 that both forge tests apply to
// SQLite and the forge alike: opened with a comment, claimed by the
// backend Lead, done and closed, reopened by the changes given, then
// claimed by the QA Lead while a stale backend claim is lost.
func mailboxScript(reopen ...Change) []Change {
	return slices.Concat([]Change{
		{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "login", Body: "DependsOn: #9", Labels: []string{"to:backend"}}, {Kind: OpComment, Issue: -1, Body: "first"}}},
		{Actor: "lead:backend", Reader: "lead:backend", UpTo: 2, Trigger: "claim:1", Ops: []Op{
			{Kind: OpAssign, Issue: 1, Assignee: "lead:backend", IfAssignee: []string{""}},
			{Kind: OpLabel, Issue: 1, Labels: []string{"state:running", "to:backend"}},
			{Kind: OpUnlabel, Issue: 1, Labels: []string{"state:absent"}},
			{Kind: OpComment, Issue: 1, Body: "working\n\nTrigger: claim:1\nReadUpTo: 2"},
		}},
		{Actor: "lead:backend", Ops: []Op{{Kind: OpUnlabel, Issue: 1, Labels: []string{"state:running"}}, {Kind: OpLabel, Issue: 1, Labels: []string{"state:done"}}, {Kind: OpClose, Issue: 1}, {Kind: OpClose, Issue: 1}}},
	}, reopen, []Change{
		{Actor: "lead:qa", Ops: []Op{{Kind: OpAssign, Issue: 1, Assignee: "lead:qa", IfAssignee: []string{""}}}},
		{Actor: "lead:qa", Ops: []Op{{Kind: OpAssign, Issue: 1, Assignee: "lead:backend", IfAssignee: []string{""}}}},
	})
}

// postHook delivers body to a webhook receiver at url with the forge's
// headers, and returns the status it answered.
func postHook(t *testing.T, url string, body []byte, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
