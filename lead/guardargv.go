package lead

import (
	"path/filepath"

	"github.com/daokit/daokit/team"
)

// ReadOnlyPaths are what a Worker must not write: the outbox database
// (with its WAL and shared-memory files; the whole folder when the
// database has one of its own) and the project memory folder.
func ReadOnlyPaths(w *team.Workflow) []string {
	db := w.DBPath()
	paths := []string{db, db + "-wal", db + "-shm"}
	if dir := filepath.Dir(db); dir != w.Dir {
		paths = []string{dir}
	}
	return append(paths, w.MemoryPath())
}

// GuardArgv is the command line prefix that runs a Worker through
// "daokit lead guard" (self is the daokit binary).
func GuardArgv(self string, w *team.Workflow) []string {
	argv := []string{self, "lead", "guard"}
	for _, p := range ReadOnlyPaths(w) {
		argv = append(argv, "--ro", p)
	}
	return append(argv, "--")
}
