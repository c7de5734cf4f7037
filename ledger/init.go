package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// InitResult lists what Init did, with paths relative to the root in the
// form the Python tool prints them ("src", "state/events.jsonl").
type InitResult struct {
	// Root is the absolute root.
	Root string
	// Created lists the folders and files Init created, in order.
	Created []string
	// Unchanged lists those that already existed and were left alone.
	Unchanged []string
}

// initAttempts bounds the retries of one exclusive create whose temp
// file was removed by a Store opening concurrently.
const initAttempts = 3

// Init creates the skeleton of a ledger root the way `daokit init` does:
// the folders src, contracts, state, artifacts, docs, tests, examples (in
// that order), then state/pipeline_state.json, heartbeat_status.json,
// process_leases.json (the default documents, stamped with now) and an
// empty events.jsonl. Existing entries are never overwritten, so Init is
// idempotent and safe while a controller holds the store lock. Each file
// appears complete or not at all. Like the Python tool it is not
// transactional: on an error, what was created before stays.
//
// Errors are *InitError wrapping ErrRootNotDirectory,
// ErrExpectedDirectory, ErrExpectedFile or an I/O error.
func Init(root string, now time.Time) (InitResult, error) {
	return initWith(root, now, InitDirs())
}

// InitState creates only what daokit itself needs to keep a ledger in
// someone's project: state/ and its four files, as Init does, and none of
// the Python tool's skeleton folders (src, tests, docs, …). Workers make
// artifacts/ when a run starts. It serves the explicit --init of send and
// run, and the window once the person said yes.
func InitState(root string, now time.Time) (InitResult, error) {
	return initWith(root, now, []string{StateDir})
}

func initWith(root string, now time.Time, dirs []string) (InitResult, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return InitResult{}, &InitError{Path: root, Err: err}
	}
	res := InitResult{Root: abs}
	if err := ensureRootDir(abs); err != nil {
		return res, err
	}
	for _, d := range dirs {
		created, err := initDir(filepath.Join(abs, d))
		if err != nil {
			return res, err
		}
		res.note(d, created)
	}
	docs, err := initDocuments(now)
	if err != nil {
		return res, &InitError{Path: abs, Err: err}
	}
	stateDir, err := OpenDir(abs, StateDir, false)
	if err != nil {
		return res, &InitError{Path: filepath.Join(abs, StateDir), Err: err}
	}
	defer stateDir.Close()
	for _, name := range StateFiles() {
		created, err := initFile(stateDir, name, docs[name])
		if err != nil {
			return res, err
		}
		res.note(path.Join(StateDir, name), created)
	}
	return res, nil
}

func (r *InitResult) note(rel string, created bool) {
	if created {
		r.Created = append(r.Created, rel)
	} else {
		r.Unchanged = append(r.Unchanged, rel)
	}
}

// initDocuments encodes the default content of each state file.
func initDocuments(now time.Time) (map[string][]byte, error) {
	docs := map[string][]byte{EventsFile: nil}
	for name, v := range map[string]any{
		PipelineFile:  NewPipelineState(now),
		HeartbeatFile: NewHeartbeatStatus(now),
		LeasesFile:    NewLeases(now),
	} {
		data, err := MarshalDocument(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
		docs[name] = data
	}
	return docs, nil
}

func ensureRootDir(abs string) error {
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return &InitError{Path: abs, Err: err}
		}
		return nil
	case err != nil:
		return &InitError{Path: abs, Err: err}
	case !st.IsDir():
		return &InitError{Path: abs, Err: ErrRootNotDirectory}
	}
	return nil
}

// initDir creates one folder of the layout unless it exists.
func initDir(p string) (created bool, err error) {
	err = os.Mkdir(p, 0o755)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, &InitError{Path: p, Err: err}
	}
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() {
		// A link to a folder is refused too: the ledger never follows one.
		return false, &InitError{Path: p, Err: ErrExpectedDirectory}
	}
	return false, nil
}

// initFile creates dir/name with data unless it exists.
func initFile(dir *Dir, name string, data []byte) (created bool, err error) {
	p := filepath.Join(dir.Path(), name)
	for range initAttempts {
		if st, err := os.Lstat(p); err == nil {
			if !st.Mode().IsRegular() {
				return false, &InitError{Path: p, Err: ErrExpectedFile}
			}
			return false, nil
		}
		err = createExclusive(dir, name, data)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, errAlreadyExists):
			continue // someone else created it: classify it on the next pass
		case errors.Is(err, fs.ErrNotExist):
			continue // a Store's Open removed our temp file
		}
		return false, &InitError{Path: p, Err: err}
	}
	if errors.Is(err, errAlreadyExists) {
		// The name was taken between the Lstat and the link.
		err = ErrExpectedFile
	}
	return false, &InitError{Path: p, Err: err}
}
