package controller

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// rootWatchEvery is how often a controller looks whether its root folder
// is still the one it started on: a person who deletes the folder (or a
// test's cleanup) expects its controller gone within seconds, not at the
// idle exit, which connections that never close may put off for ever.
const rootWatchEvery = time.Second

// RootGoneError is returned by Run when the root folder the controller
// started on was deleted, or replaced by another folder at the same
// path. Its ledger went with it, so the controller stops its workers and
// ends without recording anything in the folder now at that path.
type RootGoneError struct {
	Root string
	// Replaced reports another folder at the path; else there is none.
	Replaced bool
}

// Error implements error.
func (e *RootGoneError) Error() string {
	if e.Replaced {
		return fmt.Sprintf("controller: the root %s was replaced by another folder", e.Root)
	}
	return fmt.Sprintf("controller: the root %s was deleted", e.Root)
}

// folderID is a folder's identity: its device and inode, which a folder
// made anew at the same path does not share.
type folderID struct{ dev, ino uint64 }

// statFolder returns the identity of the folder at path.
func statFolder(path string) (folderID, error) {
	st, err := os.Stat(path)
	if err != nil {
		return folderID{}, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.IsDir() {
		return folderID{}, syscall.ENOTDIR
	}
	return folderID{dev: uint64(sys.Dev), ino: sys.Ino}, nil
}

// rootGone reports whether root is no longer the folder id: nothing at
// its path (or not a folder), or another folder. Any other failure of
// the look (a permission, an I/O error) is no proof, and is not acted on.
func rootGone(root string, id folderID) *RootGoneError {
	now, err := statFolder(root)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return &RootGoneError{Root: root}
	case err != nil:
		return nil
	case now != id:
		return &RootGoneError{Root: root, Replaced: true}
	}
	return nil
}

// watchRoot ends the controller (stop, with a *RootGoneError as the
// cause) once root is no longer the folder id, looking every
// rootWatchEvery until ctx ends.
func watchRoot(ctx context.Context, root string, id folderID, stop context.CancelCauseFunc) {
	tick := time.NewTicker(rootWatchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if gone := rootGone(root, id); gone != nil {
			stop(gone)
			return
		}
	}
}
