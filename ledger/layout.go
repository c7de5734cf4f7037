package ledger

import "path/filepath"

// File names inside <root>/state/.
const (
	StateDir      = "state"
	PipelineFile  = "pipeline_state.json"
	HeartbeatFile = "heartbeat_status.json"
	LeasesFile    = "process_leases.json"
	EventsFile    = "events.jsonl"
	HandoffFile   = "handoff_package.json"
	// LockFile is held (flock) by the single writer of a root.
	LockFile = "daokit.lock"
)

// Layout names the paths of one ledger root.
type Layout struct {
	Root string
}

// StateDir returns <root>/state.
func (l Layout) StateDir() string { return filepath.Join(l.Root, StateDir) }

// Path returns <root>/state/<name>.
func (l Layout) Path(name string) string { return filepath.Join(l.Root, StateDir, name) }

// Pipeline returns the path of pipeline_state.json.
func (l Layout) Pipeline() string { return l.Path(PipelineFile) }

// Heartbeat returns the path of heartbeat_status.json.
func (l Layout) Heartbeat() string { return l.Path(HeartbeatFile) }

// Leases returns the path of process_leases.json.
func (l Layout) Leases() string { return l.Path(LeasesFile) }

// Events returns the path of events.jsonl.
func (l Layout) Events() string { return l.Path(EventsFile) }

// Handoff returns the path of handoff_package.json.
func (l Layout) Handoff() string { return l.Path(HandoffFile) }

// Artifacts returns <root>/artifacts.
func (l Layout) Artifacts() string { return filepath.Join(l.Root, "artifacts") }

// InitDirs are the folders `daokit init` creates, in the Python tool's order.
func InitDirs() []string {
	return []string{"src", "contracts", "state", "artifacts", "docs", "tests", "examples"}
}

// StateFiles are the four contract files, in the order init creates them.
func StateFiles() []string {
	return []string{PipelineFile, HeartbeatFile, LeasesFile, EventsFile}
}
