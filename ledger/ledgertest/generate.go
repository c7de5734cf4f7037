// Package ledgertest writes large, realistic ledgers for benchmarks and
// load tests. It encodes the files itself, byte for byte in the form the
// ledger package (and the Python DAOKit) writes them, and imports nothing
// of daokit, so that the ledger package's own tests and benchmarks can use
// it without an import cycle. ledger's tests check that its output parses
// and validates.
package ledgertest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Options configure Generate.
type Options struct {
	// Events is the number of events written to state/events.jsonl.
	Events int
	// Seed makes the content reproducible; the same seed writes the same
	// bytes.
	Seed uint64
	// Start is the timestamp of the first event; zero means
	// 2026-02-11T09:00:00Z. Later events are 1 to 400 ms apart.
	Start time.Time
}

// Stats describes a generated ledger.
type Stats struct {
	Events      int
	EventsBytes int64
}

// initDirs is the layout of `daokit init`.
var initDirs = []string{"src", "contracts", "state", "artifacts", "docs", "tests", "examples"}

// GenerateLedger writes the init layout, realistic state documents and n
// events under root with seed 1. Existing state files are overwritten.
func GenerateLedger(root string, n int) error {
	_, err := Generate(root, Options{Events: n, Seed: 1})
	return err
}

// Generate writes the init layout under root, the three state documents
// of a run in progress, and opts.Events events. The event log is written
// through a large buffer and synced once at the end.
func Generate(root string, opts Options) (Stats, error) {
	var st Stats
	for _, d := range initDirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return st, fmt.Errorf("generate ledger: %w", err)
		}
	}
	start := opts.Start
	if start.IsZero() {
		start = time.Date(2026, 2, 11, 9, 0, 0, 0, time.UTC)
	}
	g := NewGenerator(opts.Seed, start)
	state := filepath.Join(root, "state")
	docs := map[string][]byte{
		"pipeline_state.json":   g.Pipeline(),
		"heartbeat_status.json": g.Heartbeat(),
		"process_leases.json":   g.Leases(),
	}
	for name, data := range docs {
		if err := os.WriteFile(filepath.Join(state, name), data, 0o644); err != nil {
			return st, fmt.Errorf("generate ledger: %w", err)
		}
	}
	n, err := writeEvents(filepath.Join(state, "events.jsonl"), g, opts.Events)
	st.Events, st.EventsBytes = opts.Events, n
	if err != nil {
		return st, fmt.Errorf("generate ledger: %w", err)
	}
	return st, nil
}

func writeEvents(path string, g *Generator, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var (
		line  []byte
		total int64
	)
	for range n {
		line = g.AppendEvent(line[:0])
		total += int64(len(line))
		if _, err := w.Write(line); err != nil {
			_ = f.Close()
			return total, err
		}
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return total, err
}

// Generator produces the documents and event lines of one simulated
// ledger. It is not safe for concurrent use.
type Generator struct {
	rng  *rand.Rand
	now  time.Time
	seq  int
	task string
	run  string
}

// NewGenerator returns a Generator whose first event is stamped start.
func NewGenerator(seed uint64, start time.Time) *Generator {
	return &Generator{
		rng:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now:  start.UTC(),
		task: "DKT-" + strconv.Itoa(100+int(seed%900)),
		run:  "RUN-" + strconv.FormatUint(seed, 10),
	}
}

// appendTime appends t as Python's isoformat of an aware UTC datetime.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Nanosecond() == 0 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05+00:00")
	}
	return t.AppendFormat(dst, "2006-01-02T15:04:05.000000+00:00")
}

// appendHex appends n random lowercase hex digits.
func (g *Generator) appendHex(dst []byte, n int) []byte {
	const digits = "0123456789abcdef"
	for i := 0; i < n; i += 16 {
		v := g.rng.Uint64()
		for j := 0; j < 16 && i+j < n; j++ {
			dst = append(dst, digits[v&0xf])
			v >>= 4
		}
	}
	return dst
}

// stamp returns the current time string and advances the clock.
func (g *Generator) stamp() string {
	s := string(appendTime(nil, g.now))
	g.now = g.now.Add(time.Duration(1+g.rng.IntN(400)) * time.Millisecond).Add(time.Duration(g.rng.IntN(1000)) * time.Microsecond)
	return s
}
