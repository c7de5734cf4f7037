package outbox

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// The behaviour every backend shares is tested in suite_test.go
// (outboxtest); these helpers serve the SQLite-only tests.

// newDB makes a new outbox database (daokit outbox init) and returns its
// path.
func newDB(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "outbox.db")
	if _, err := Init(path, false); err != nil {
		t.Fatal(err)
	}
	return path
}

func openTest(t testing.TB) *SQLite {
	t.Helper()
	s, err := OpenSQLite(newDB(t), Options{WakeInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustApply(t testing.TB, s Backend, c Change) Result {
	t.Helper()
	r, err := s.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
