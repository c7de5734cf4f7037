package ledger

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. They are stable: the CLI and the window match them with
// errors.Is and show a translated message.
var (
	// ErrLocked means another Store holds the root's lock file. The error
	// is a *LockedError naming the holder.
	ErrLocked = errors.New("ledger is locked by another writer")
	// ErrMissing means a ledger file does not exist.
	ErrMissing = errors.New("file is missing")
	// ErrEmpty means a ledger file exists but holds nothing (or only
	// white space), as a Python writer leaves it in the middle of a save.
	ErrEmpty = errors.New("file is empty")
	// ErrNotRegular means a ledger path is a folder or a device.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink means a ledger or artifact path is a symbolic link,
	// which the ledger never follows (see Dir). It matches ErrNotRegular
	// too, so a reader that only knows that error still names the file.
	ErrSymlink error = &kindError{msg: "is a symbolic link, which daokit does not follow", kind: ErrNotRegular}
	// ErrOutsideRoot means a path would leave its ledger root: a ".."
	// element, an absolute path, or a separator inside one name.
	ErrOutsideRoot = errors.New("outside the ledger root")
	// ErrTooLarge means a ledger document, or one event line, is larger
	// than a reader is willing to hold in memory.
	ErrTooLarge = errors.New("too large")
	// ErrNoStateDir means <root>/state does not exist and Open was not
	// asked to create it.
	ErrNoStateDir = errors.New("state folder is missing")
	// ErrClosed means a Store or Follower was used after Close.
	ErrClosed = errors.New("closed")
	// ErrReservedName means WriteDocument was given the name of a file
	// that has its own writer (or is not a plain file name).
	ErrReservedName = errors.New("reserved or invalid document name")
	// ErrRootNotDirectory means Init was pointed at something that is
	// not a folder.
	ErrRootNotDirectory = errors.New("root is not a directory")
	// ErrExpectedDirectory means Init found a non-folder where one of the
	// layout's folders belongs.
	ErrExpectedDirectory = errors.New("expected a directory, found a non-directory entry")
	// ErrExpectedFile means Init found a non-file where one of the state
	// files belongs.
	ErrExpectedFile = errors.New("expected a file, found a non-file entry")
)

// LockedError is returned by Open when another writer holds the lock.
// It matches ErrLocked with errors.Is.
type LockedError struct {
	Path      string // the lock file, <root>/state/daokit.lock
	HolderPID int    // pid recorded by the holder; 0 if it could not be read
}

// Error implements error.
func (e *LockedError) Error() string {
	if e.HolderPID > 0 {
		return fmt.Sprintf("%s: %v (pid %d)", e.Path, ErrLocked, e.HolderPID)
	}
	return fmt.Sprintf("%s: %v", e.Path, ErrLocked)
}

// Is reports whether target is ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// FileError says which ledger file could not be loaded and why. Err is
// ErrMissing, ErrEmpty, ErrNotRegular, ErrTooLarge, one or more
// *ValidationError (bad JSON, wrong shape), or an I/O error.
type FileError struct {
	File string // base name, e.g. "pipeline_state.json"
	Path string // full path
	Err  error
}

// Error implements error. ValidationErrors that already name the file
// are printed without repeating it.
func (e *FileError) Error() string {
	problems := Problems(e.Err)
	if len(problems) == 0 {
		return e.Path + ": " + e.Err.Error()
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.describe()
	}
	return e.Path + ": " + strings.Join(parts, "; ")
}

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// InitError is returned by Init. Err is ErrRootNotDirectory,
// ErrExpectedDirectory, ErrExpectedFile or an I/O error; Path is the
// absolute path of the offending entry.
type InitError struct {
	Path string
	Err  error
}

// Error implements error with the Python tool's wording, so that the
// English message of `daokit init` matches `daokit-cli init`.
func (e *InitError) Error() string {
	switch {
	case errors.Is(e.Err, ErrRootNotDirectory):
		return fmt.Sprintf("target root '%s' is not a directory", e.Path)
	case errors.Is(e.Err, ErrExpectedDirectory):
		return fmt.Sprintf("expected directory at '%s', found non-directory entry", e.Path)
	case errors.Is(e.Err, ErrExpectedFile):
		return fmt.Sprintf("expected file at '%s', found non-file entry", e.Path)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

// Unwrap returns the reason.
func (e *InitError) Unwrap() error { return e.Err }

// kindError is a sentinel that also matches a broader one with errors.Is.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// ConflictError is returned by a write that found its file changed by
// another writer (the Python tool, a person's editor) since daokit read
// it: writing on would erase that change, so nothing was written.
type ConflictError struct {
	File     string       // the state file, e.g. pipeline_state.json
	Expected FileIdentity // the version daokit read
	Found    FileIdentity // the version on disk
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s was changed by another writer (expected %s, found %s)", e.File, e.Expected, e.Found)
}

// PendingCommitError is returned by Commit when a write failed after the
// commit point and putting the files back failed too: the journal stays,
// and the next writer finishes the commit if the files it covers are
// still as the commit left them, or discards it with a warning event.
type PendingCommitError struct {
	Err  error // the write that failed
	Undo error // why the files could not be put back
}

// Error implements error.
func (e *PendingCommitError) Error() string {
	return fmt.Sprintf("commit: %v (and putting the files back failed: %v); %s stays for the next writer", e.Err, e.Undo, JournalFile)
}

// Unwrap returns the failed write.
func (e *PendingCommitError) Unwrap() error { return e.Err }
