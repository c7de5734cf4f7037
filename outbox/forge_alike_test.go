package outbox

import (
	"context"
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
