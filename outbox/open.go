package outbox

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The problems of an outbox database that every open refuses, so that a
// lost or damaged outbox is never silently replaced by an empty one: the
// issue's "database emptied to 0 bytes, silently recreated, 3 issues
// gone". Only Init (daokit outbox init) creates a database.
var (
	// ErrMissing: there is no database file.
	ErrMissing = errors.New("outbox: no database")
	// ErrEmpty: the database file has 0 bytes.
	ErrEmpty = errors.New("outbox: database is empty")
	// ErrCorrupt: the file is not an SQLite database, or not an outbox.
	ErrCorrupt = errors.New("outbox: database is not an outbox")
)

// OpenError is a refused database: Err is ErrMissing, ErrEmpty or
// ErrCorrupt, Detail what was found.
type OpenError struct {
	Path   string
	Err    error
	Detail string
}

// Code is the stable name of the problem: OUTBOX_MISSING, OUTBOX_EMPTY
// or OUTBOX_CORRUPT.
func (e *OpenError) Code() string {
	switch e.Err {
	case ErrMissing:
		return "OUTBOX_MISSING"
	case ErrEmpty:
		return "OUTBOX_EMPTY"
	}
	return "OUTBOX_CORRUPT"
}

func (e *OpenError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%v: %s", e.Err, e.Path)
	}
	return fmt.Sprintf("%v: %s: %s", e.Err, e.Path, e.Detail)
}

// Unwrap lets errors.Is see ErrMissing, ErrEmpty or ErrCorrupt.
func (e *OpenError) Unwrap() error { return e.Err }

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkFile refuses what is not an SQLite database file: missing, 0
// bytes, a folder, or foreign bytes. A database with all its pages still
// in the WAL has a header already (Init checkpoints), so an empty main
// file is always a lost database.
func checkFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &OpenError{Path: path, Err: ErrMissing}
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return &OpenError{Path: path, Err: ErrCorrupt, Detail: "not a regular file"}
	case st.Size() == 0:
		return &OpenError{Path: path, Err: ErrEmpty}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteMagic) {
		return &OpenError{Path: path, Err: ErrCorrupt, Detail: "not an SQLite database"}
	}
	return nil
}

// outboxTables are the tables every outbox has (see schema).
var outboxTables = []string{"issues", "labels", "comments", "events", "cursors", "triggers"}

// checkSchema refuses an SQLite database that lacks the outbox's tables
// (another program's database, or one whose pages were lost). It reads
// through a connection of its own with no pragmas: the outbox's
// journal_mode(WAL) would otherwise rewrite a foreign database's header
// before it is refused.
func checkSchema(path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return &OpenError{Path: path, Err: ErrCorrupt, Detail: err.Error()}
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return &OpenError{Path: path, Err: ErrCorrupt, Detail: err.Error()}
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return &OpenError{Path: path, Err: ErrCorrupt, Detail: err.Error()}
	}
	for _, t := range outboxTables {
		if !have[t] {
			return &OpenError{Path: path, Err: ErrCorrupt, Detail: "no table " + t}
		}
	}
	return nil
}

// InitResult is what Init did.
type InitResult struct {
	// Created: a new, empty outbox was made.
	Created bool
	// MovedAside is where a refused database was moved (Replace), or "".
	MovedAside string
}

// Init creates the outbox database at path when there is none; an outbox
// that is there already is checked and kept. A database that is there
// but refused (empty or corrupt) is an error, unless replace is set: it
// is then moved aside to <path>.broken-<time> (never deleted: it may be
// all that is left of the team's issues) and a new one is made.
func Init(path string, replace bool) (InitResult, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return InitResult{}, err
	}
	var res InitResult
	probe := checkFile(abs)
	if probe == nil {
		s, err := OpenSQLite(abs, Options{})
		if err == nil {
			return res, s.Close()
		}
		probe = err
	}
	switch {
	case errors.Is(probe, ErrMissing):
	case replace && (errors.Is(probe, ErrEmpty) || errors.Is(probe, ErrCorrupt)):
		res.MovedAside = fmt.Sprintf("%s.broken-%s", abs, time.Now().UTC().Format("20060102T150405Z"))
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(abs+suffix, res.MovedAside+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, err
			}
		}
	default:
		return res, probe
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return res, err
	}
	s, err := openSQLite(abs, Options{})
	if err != nil {
		return res, err
	}
	res.Created = true
	// The schema is in the WAL until a checkpoint: write it into the
	// main file, so that a database file is never legitimately empty.
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		s.Close()
		return res, err
	}
	return res, s.Close()
}

// Check reports whether path is an outbox database every open would
// accept (an *OpenError when not), without opening it for use: a
// supervisor waiting for a refused outbox to be restored or made anew
// looks with it.
func Check(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := checkFile(abs); err != nil {
		return err
	}
	return checkSchema(abs)
}
