package ledger

import (
	"errors"
	"fmt"
	"path/filepath"
)

// IDPattern is the one pattern every task, run, step and lane id matches,
// wherever it enters (the socket, the CLI, daokit.toml, a ledger read):
// 1 to 128 ASCII letters, digits, '.', '_' and '-', not starting with
// '.' or '-'. Such an id is always one harmless path element: never
// empty, never "." or "..", never a separator, never option-like, never
// hidden. Ids are refused, not cleaned: a different id would name a
// different task.
const IDPattern = `^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`

// ErrInvalidID means an id does not match IDPattern.
var ErrInvalidID = errors.New("invalid id")

// IDError names the id that does not match IDPattern and what it was
// meant to be ("task_id", "run_id", "step_id", "lane").
type IDError struct {
	Kind  string
	Value string
}

// Error implements error.
func (e *IDError) Error() string {
	return fmt.Sprintf("%s %q: %v (want %s)", e.Kind, e.Value, ErrInvalidID, IDPattern)
}

// Unwrap returns ErrInvalidID.
func (e *IDError) Unwrap() error { return ErrInvalidID }

// ValidID reports whether id matches IDPattern. It is written out rather
// than compiled from the pattern: the regexp's {0,127} compiles to 128
// states at every start of every command (about 1,900 allocations and
// 0.6 ms before main); FuzzValidIDIsIDPattern keeps the two equal.
func ValidID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// CheckID returns nil for a valid id, else an *IDError of kind.
func CheckID(kind, id string) error {
	if ValidID(id) {
		return nil
	}
	return &IDError{Kind: kind, Value: id}
}

// ArtifactDir returns <root>/artifacts/<task>/<run>/<step>, the folder
// of one step's worker output. Ids that do not match IDPattern are
// refused with an *IDError, so an id from a client, a flag or a copied
// ledger never becomes a path outside the artifact folder.
func (l Layout) ArtifactDir(taskID, runID, stepID string) (string, error) {
	for _, id := range [...]struct{ kind, v string }{{"task_id", taskID}, {"run_id", runID}, {"step_id", stepID}} {
		if err := CheckID(id.kind, id.v); err != nil {
			return "", err
		}
	}
	return filepath.Join(l.Artifacts(), taskID, runID, stepID), nil
}
