package ledger

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCrashRecovery kills a writer process with SIGKILL at random moments
// and checks after every kill that each document parses and validates,
// that every acknowledged event is in the log, and that the next writer
// repairs the tail and appends.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	root := initRoot(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	acked := map[string]bool{}
	onLine := func(line string) {
		if seq, ok := strings.CutPrefix(line, "A "); ok {
			acked["seq:"+seq] = true
		}
	}
	var tornRounds int
	c := &crashChecker{f: NewFollower(statePath(root, EventsFile), 0), found: map[string]bool{}}
	defer c.f.Close()
	for round := range rounds {
		torn := round%4 == 3
		env := []string{helperSeqEnv + "=" + strconv.Itoa(round*100000)}
		if torn {
			env = append(env, helperTornEnv+"=1")
		}
		h := startHelper(t, "crash", root, env...)
		switch {
		case rng.IntN(8) == 0:
			// Kill during start-up, Open or the tail repair.
		case torn:
			if h.waitLine("T", onLine) {
				tornRounds++
			}
		default:
			h.waitLine("A "+strconv.Itoa(round*100000), onLine)
			timer := time.NewTimer(time.Duration(rng.IntN(15000)) * time.Microsecond)
			collect(h, timer.C, onLine)
		}
		if err := h.kill(onLine); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		c.check(t, root, acked, round)
	}
	if tornRounds == 0 {
		t.Errorf("no round left a torn tail")
	}

	s := openStore(t, root)
	if err := s.AppendEvent(testEvent(-1)); err != nil {
		t.Fatalf("append after the last crash: %v", err)
	}
	acked["seq:-1"] = true
	c.check(t, root, acked, rounds)
	if data := readFile(t, statePath(root, EventsFile)); !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("events.jsonl does not end with a newline after the final Open")
	}
	entries, err := os.ReadDir(filepath.Join(root, StateDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if IsTempName(e.Name()) {
			t.Errorf("temp file %s survived Open", e.Name())
		}
	}
	t.Logf("%d rounds, %d acknowledged events, %d torn tails", rounds, len(acked), tornRounds)
}

// collect records the helper's output until the timer fires.
func collect(h *helper, stop <-chan time.Time, onLine func(string)) {
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				return
			}
			onLine(line)
		case <-stop:
			return
		}
	}
}

// crashChecker verifies the ledger a killed writer left behind. It reads
// the log with a Follower, as the window does, so that each round reads
// only what is new, and so that the Follower itself is tested across
// torn tails and their repair.
type crashChecker struct {
	f     *Follower
	found map[string]bool
}

func (c *crashChecker) check(t *testing.T, root string, acked map[string]bool, round int) {
	t.Helper()
	snap := LoadSnapshot(root)
	if errs := snap.Problems(); len(errs) != 0 {
		t.Fatalf("round %d: documents do not load: %v", round, errs)
	}
	for _, err := range []error{snap.Pipeline.Schema, snap.Heartbeat.Schema, snap.Leases.Schema} {
		if err != nil {
			t.Fatalf("round %d: document does not validate: %v", round, err)
		}
	}
	for {
		b, err := c.f.Next()
		if err != nil {
			t.Fatalf("round %d: follow: %v", round, err)
		}
		if b.Reset || b.Skipped != 0 {
			t.Fatalf("round %d: follower saw reset=%v skipped=%d: the log has a bad line", round, b.Reset, b.Skipped)
		}
		for _, e := range b.Events {
			if err := e.Validate(); err != nil {
				t.Fatalf("round %d: invalid event %s: %v", round, e.DedupKey, err)
			}
			if c.found[e.DedupKey] {
				t.Fatalf("round %d: event %s read twice", round, e.DedupKey)
			}
			c.found[e.DedupKey] = true
		}
		if !b.More {
			break
		}
	}
	for key := range acked {
		if !c.found[key] {
			t.Fatalf("round %d: acknowledged event %s is missing", round, key)
		}
	}
	tail, err := TailEvents(statePath(root, EventsFile), 5)
	if err != nil || tail.Skipped != 0 {
		t.Fatalf("round %d: TailEvents = %v, skipped %d", round, err, tail.Skipped)
	}
}
