package lead

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// A Worker's attempts are kept under the team's state, one folder each
// (the layout is roster's, which the window reads too): stdout.log and
// stderr.log are written by the Worker itself, as a controller step's
// are (worker.Spec.ArtifactDir), and, once the Worker exited on its own,
// result.json by the Lead before it posts the result (see
// WriteAttemptResult). Attempts count from 1 and only grow, across Lead
// restarts, so an attempt's folder is never written twice.

// attemptResult is how a Worker attempt that exited on its own ended, as
// its Lead recorded it before posting it: a Lead that dies between the
// two leaves it for the next Lead, which posts it instead of running the
// Worker again (see Lead.recoverResult).
type attemptResult struct {
	Role     string `json:"role"`
	Issue    int64  `json:"issue"`
	Attempt  int    `json:"attempt"`
	PID      int    `json:"pid"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// Evidence are the mailbox fields the Worker printed; nil in the
	// first record, written as the Worker exits (they are read back from
	// its stdout log then).
	Evidence map[string]string `json:"evidence,omitempty"`
	// Invalid are the fields it printed that break the mailbox contract
	// (not in Evidence), kept for the comment that posts the result.
	Invalid map[string]outbox.InvalidField `json:"invalid,omitempty"`
	// SessionID, Usage: what an agent CLI reported (worker.Summary).
	SessionID string     `json:"session_id,omitempty"`
	Usage     *usageInfo `json:"usage,omitempty"`
	// Commit is the commit the Lead made of what the Worker left
	// uncommitted in its worktree ("" none, or no worktree).
	Commit string `json:"commit,omitempty"`
	// Loop says how a role's loop went (workflow = "loop"; its steps
	// are in the attempt's folder, one each).
	Loop string `json:"loop,omitempty"`
	// StdoutBytes, StderrBytes are the logs' lengths at the end.
	StdoutBytes int64     `json:"stdout_bytes"`
	StderrBytes int64     `json:"stderr_bytes"`
	Time        time.Time `json:"time"`
}

// usageInfo is what an agent Worker said its work cost.
type usageInfo struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// writeAttemptResult records r in dir (a temp file renamed over): once it
// returns, a Lead killed at any moment leaves it for its successor.
// durable also syncs it and the folder, for an OS crash: the Lead's
// first record of an exit, the instant it is known, is not synced (see
// Lead.spawnWorker), its full record before posting is.
func writeAttemptResult(dir string, r attemptResult, durable bool) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if durable {
		return writeSynced(dir, roster.AttemptResultFile, data)
	}
	path := filepath.Join(dir, roster.AttemptResultFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// readAttemptResult reads an attempt's result record (os.ErrNotExist: the
// Worker never exited on its own, or its Lead died first).
func readAttemptResult(dir string) (attemptResult, error) {
	var r attemptResult
	data, err := os.ReadFile(filepath.Join(dir, roster.AttemptResultFile))
	if err != nil {
		return r, err
	}
	err = json.Unmarshal(data, &r)
	return r, err
}
