package ledger

import (
	"errors"
	"testing"
)

// TestOpenFollowsThePythonBackendSelection: the environment variable
// wins over the settings file and over a state.sqlite3, as in the Python
// tool; a SQLite selection is refused before anything is written.
func TestOpenFollowsThePythonBackendSelection(t *testing.T) {
	root := initRoot(t)
	writeFile(t, statePath(root, PythonSQLiteFile), []byte("SQLite format 3\x00"))
	refused := func(source string) {
		t.Helper()
		s, err := Open(root, Options{})
		var sq *SQLiteBackendError
		if !errors.As(err, &sq) || sq.Source != source || !errors.Is(err, ErrSQLiteBackend) {
			t.Fatalf("Open: %v, want a refusal from %s", err, source)
		}
		if s != nil {
			t.Fatal("a store came with the refusal")
		}
	}
	refused(BackendFromDatabase)
	t.Setenv(PythonBackendEnv, " FS ")
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatalf("Open with %s=FS: %v", PythonBackendEnv, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PythonBackendEnv, "sqlite")
	writeFile(t, statePath(root, RuntimeSettingsFile), []byte(`{"state": {"backend": "filesystem"}}`))
	refused(BackendFromEnv)
}
