package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// The Python tool's state backend selection (daokit-compat.md §0, §6):
// the environment variable, else the settings file's state.backend or
// runtime.state_backend, else the filesystem. On its SQLite backend it
// reads state/state.sqlite3 and only mirrors the JSON files daokit
// writes, so a daokit write there would be lost to it.
const (
	PythonBackendEnv    = "DAOKIT_STATE_BACKEND"
	RuntimeSettingsFile = "runtime_settings.json"
	PythonSQLiteFile    = "state.sqlite3"
)

// Where a SQLite selection was found.
const (
	BackendFromEnv      = "env"      // DAOKIT_STATE_BACKEND
	BackendFromSettings = "settings" // state/runtime_settings.json
	BackendFromDatabase = "database" // state/state.sqlite3 and no selection
)

// ErrSQLiteBackend means the Python tool keeps the root on its SQLite
// backend, which daokit does not write.
var ErrSQLiteBackend = errors.New("the Python DAOKit keeps this root on its SQLite backend")

// SQLiteBackendError is Open's refusal of a root on the Python SQLite
// backend: daokit writes the JSON files only, and the Python tool would
// read past every one of its writes. Source says how the backend was
// selected (BackendFrom…), Setting the setting that selected it.
type SQLiteBackendError struct {
	Root    string
	Source  string
	Setting string
}

// Error implements error.
func (e *SQLiteBackendError) Error() string {
	return fmt.Sprintf("%s: %v (%s)", e.Root, ErrSQLiteBackend, e.Setting)
}

// Unwrap returns ErrSQLiteBackend.
func (e *SQLiteBackendError) Unwrap() error { return ErrSQLiteBackend }

// checkBackend refuses a root the Python tool keeps on SQLite. An
// explicit filesystem selection wins over a state.sqlite3 left from an
// earlier SQLite run; with no selection at all, that database means the
// Python tool was run with the environment variable set (the usual way
// to choose SQLite), and daokit cannot see that environment.
func checkBackend(root string, dir *Dir) error {
	refuse := func(source, setting string) error {
		return &SQLiteBackendError{Root: root, Source: source, Setting: setting}
	}
	if v, ok := os.LookupEnv(PythonBackendEnv); ok {
		switch backendKind(v) {
		case "sqlite":
			return refuse(BackendFromEnv, PythonBackendEnv+"="+v)
		case "filesystem":
			return nil
		}
	}
	var st unix.Stat_t
	if unix.Fstatat(dir.fd(), RuntimeSettingsFile, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		// No settings file, the usual case: nothing to read.
	} else if data, err := dir.ReadFile(RuntimeSettingsFile, MaxDocumentBytes); err == nil {
		var settings map[string]any
		if json.Unmarshal(data, &settings) == nil {
			for _, path := range [][2]string{{"state", "backend"}, {"runtime", "state_backend"}} {
				section, _ := settings[path[0]].(map[string]any)
				v, ok := section[path[1]].(string)
				if !ok {
					continue
				}
				switch backendKind(v) {
				case "sqlite":
					return refuse(BackendFromSettings, StateDir+"/"+RuntimeSettingsFile+" "+path[0]+"."+path[1]+"="+v)
				case "filesystem":
					return nil
				}
				break // the Python tool takes the first string it finds
			}
		}
	}
	if unix.Fstatat(dir.fd(), PythonSQLiteFile, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return refuse(BackendFromDatabase, StateDir+"/"+PythonSQLiteFile)
	}
	return nil
}

// backendKind normalises a backend name as the Python tool does:
// "filesystem", "sqlite", or "" for a name it refuses.
func backendKind(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "fs", "filesystem", "file", "file-system", "file_system":
		return "filesystem"
	case "sqlite", "sqlite3":
		return "sqlite"
	}
	return ""
}

// CheckBackend is Open's backend check without opening the store, for a
// command that starts a writer (a controller) rather than being one: it
// returns the *SQLiteBackendError Open would, or nil. A root without a
// state folder is not refused here; Open says what is missing.
func CheckBackend(root string) error {
	dir, err := OpenDir(root, StateDir, false)
	if err != nil {
		return nil
	}
	defer dir.Close()
	return checkBackend(root, dir)
}
