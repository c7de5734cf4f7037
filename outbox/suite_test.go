package outbox_test

import (
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/outboxtest"
)

// The SQLite backend has every behaviour outboxtest asks of a backend;
// each handle is a connection of its own to one database file, as the
// Leads of one host are.
func TestSQLiteBackend(t *testing.T) {
	outboxtest.Run(t, func(t testing.TB) outboxtest.Opener {
		path := filepath.Join(t.TempDir(), "outbox.db")
		if _, err := outbox.Init(path, false); err != nil {
			t.Fatal(err)
		}
		return func(t testing.TB, h outboxtest.Handle) outbox.Backend {
			s, err := outbox.OpenSQLite(path, outbox.Options{WakeInterval: h.WakeInterval})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}
