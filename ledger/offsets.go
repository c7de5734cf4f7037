package ledger

import "os"

// EventsSize returns the end of events.jsonl after the last good append:
// the offset up to which every byte was written and synced by this store.
// An index derived from the log records it as the point it covers.
func (s *Store) EventsSize() int64 {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	return s.size
}

// ReplaceFile replaces dir/name with data the way the store replaces its
// documents: a synced temporary file renamed into place, then the folder
// synced. Derived files kept beside the ledger (the controller's
// instruction index) use it so that a crash leaves the old or the new
// content, never a torn one. dir is opened as given; name in it is
// replaced, never followed (see Dir).
func ReplaceFile(dir, name string, data []byte) error { return ReplaceFilePerm(dir, name, data, 0o644) }

// ReplaceFilePerm is ReplaceFile with the new file's mode (before the
// umask), for files private to their user.
func ReplaceFilePerm(dir, name string, data []byte, perm os.FileMode) error {
	d, err := OpenDir(dir, "", false)
	if err != nil {
		return err
	}
	defer d.Close()
	return replaceFilePerm(d, name, data, perm)
}
