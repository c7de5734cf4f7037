package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// watchedDir is the folder fsnotify watches: state/ once it exists, else
// its nearest existing ancestor.
type watchedDir struct {
	path     string
	ino, dev uint64
}

// rewatchAttempts bounds rewatch when folders keep appearing and
// vanishing under it; the next poll tries again.
const rewatchAttempts = 16

// rewatch points the watch at state/, or at its nearest existing ancestor
// while state/ does not exist, and notices a folder that was replaced by
// another inode under the same name (its old watch is dead). It reports
// whether the watched folder changed.
func (l *watchLoop) rewatch() (moved bool, err error) {
	for range rewatchAttempts {
		want, ok := nearestDir(l.stateDir)
		if !ok {
			continue
		}
		if want == l.dir && l.watching(want.path) {
			return moved, nil
		}
		moved = true
		// The identity is read before the watch is added: if the folder
		// is swapped in between, the next pass sees a mismatch and adds
		// the watch again, instead of trusting a watch on a dead inode.
		if l.fw != nil {
			if l.dir.path != "" {
				_ = l.fw.Remove(l.dir.path)
			}
			if err := l.fw.Add(want.path); err != nil {
				l.dir = watchedDir{}
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return moved, fmt.Errorf("watch %s: %w", want.path, err)
			}
		}
		l.dir = want
	}
	return moved, nil
}

// nearestDir returns dir, or its closest ancestor that is a folder, with
// its identity. ok is false when the walk raced with a removal.
func nearestDir(dir string) (watchedDir, bool) {
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil && st.IsDir() {
			ino, dev := fileID(st)
			return watchedDir{path: p, ino: ino, dev: dev}, true
		}
		if parent := filepath.Dir(p); parent == p {
			return watchedDir{}, false
		}
	}
}

// watching reports whether fsnotify still holds a watch on path; the
// kernel drops it when the folder is deleted.
func (l *watchLoop) watching(path string) bool {
	return l.fw == nil || slices.Contains(l.fw.WatchList(), path)
}

// forgetDir drops the current watch so that rewatch adds a fresh one.
func (l *watchLoop) forgetDir() {
	if l.fw != nil && l.dir.path != "" {
		_ = l.fw.Remove(l.dir.path)
	}
	l.dir = watchedDir{}
}
