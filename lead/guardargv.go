package lead

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/team"
)

// GuardPaths are what the guard takes away from a Worker.
type GuardPaths struct {
	// ReadOnly: bound read-only (a folder with everything under it).
	ReadOnly []string
	// Hidden: folders covered by an empty read-only folder, so that the
	// sockets in them cannot be reached (connecting to a socket needs no
	// write access to its file system).
	Hidden []string
}

// readOnlyPaths are what a Worker must not write: the outbox database
// (with its WAL and shared-memory files; the whole folder when the
// database has one of its own, so that no WAL can be planted beside it),
// the project memory folder and workflow.toml; with the ledger root (""
// when unknown), also daokit.toml, whose hooks the controller runs, and
// the controller's state folder.
func readOnlyPaths(w *team.Workflow, root string) []string {
	db := w.DBPath()
	// The role wake folder too: a poke is only a hint, but a Worker
	// must not make its Lead's siblings read events for nothing.
	paths := []string{db, db + "-wal", db + "-shm", outbox.WakeDir(db)}
	if dir := filepath.Dir(db); dir != w.Dir {
		paths = []string{dir}
	}
	paths = append(paths, w.MemoryPath(), filepath.Join(w.Dir, team.FileName))
	if root != "" {
		paths = append(paths, config.Path(root), ledger.Layout{Root: root}.StateDir())
	}
	return paths
}

// hiddenPaths are the folders whose sockets a Worker must not reach:
// the controller's (<root>/state/run, and the per-user folder its socket
// falls back to for a long root) and the session's $XDG_RUNTIME_DIR
// (the user's service manager and bus, which start processes outside
// the guard for anyone of the user's uid).
func hiddenPaths(root string) []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		for _, q := range out {
			if q == p || strings.HasPrefix(p, q+string(filepath.Separator)) {
				return
			}
		}
		out = append(out, p)
	}
	add(os.Getenv("XDG_RUNTIME_DIR"))
	if root != "" {
		add(filepath.Join(ledger.Layout{Root: root}.StateDir(), "run"))
		if sock, err := relay.ResolveSocket(root); err == nil {
			add(filepath.Dir(sock))
		}
	}
	return out
}

// GuardOf returns the paths of w and the ledger root (may be "") that the
// guard protects.
func GuardOf(w *team.Workflow, root string) GuardPaths {
	return GuardPaths{ReadOnly: readOnlyPaths(w, root), Hidden: hiddenPaths(root)}
}

// GuardArgv is the command line prefix that runs a Worker through
// "daokit lead guard" (self is the daokit binary).
func GuardArgv(self string, g GuardPaths) []string {
	return append([]string{self, "lead", "guard"}, g.Flags()...)
}

// Flags are g as the guard's flags, ending with "--".
func (g GuardPaths) Flags() []string {
	var argv []string
	for _, p := range g.ReadOnly {
		argv = append(argv, "--ro", p)
	}
	for _, p := range g.Hidden {
		argv = append(argv, "--hide", p)
	}
	return append(argv, "--")
}
