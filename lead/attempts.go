package lead

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// A Worker's attempts are kept under the team's state, one folder each:
// <status dir>/workers/<role>/<issue>/<attempt>/ holds stdout.log and
// stderr.log (written by the Worker itself, as a controller step's are:
// worker.Spec.ArtifactDir) and, once the Worker exited on its own,
// result.json (written by the Lead before it posts the result: see
// writeAttemptResult). Attempts count from 1 and only grow, across Lead
// restarts, so an attempt's folder is never written twice.

// workersDir is the folder of role's Worker attempts.
func workersDir(statusDir, role string) string { return filepath.Join(statusDir, "workers", role) }

// AttemptDir is the folder of one attempt of role's Worker on issue.
func AttemptDir(statusDir, role string, issue int64, attempt int) string {
	return filepath.Join(workersDir(statusDir, role), strconv.FormatInt(issue, 10), strconv.Itoa(attempt))
}

// Attempts lists the attempts kept for role's Worker on issue, oldest
// first (none: an empty list and no error).
func Attempts(statusDir, role string, issue int64) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(workersDir(statusDir, role), strconv.FormatInt(issue, 10)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 && e.IsDir() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// resultFile is the name of an attempt's result record.
const resultFile = "result.json"

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
	// SessionID, Usage: what an agent CLI reported (worker.Summary).
	SessionID string     `json:"session_id,omitempty"`
	Usage     *usageInfo `json:"usage,omitempty"`
	// Commit is the commit the Lead made of what the Worker left
	// uncommitted in its worktree ("" none, or no worktree).
	Commit string `json:"commit,omitempty"`
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
	path := filepath.Join(dir, resultFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if !durable {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readAttemptResult reads an attempt's result record (os.ErrNotExist: the
// Worker never exited on its own, or its Lead died first).
func readAttemptResult(dir string) (attemptResult, error) {
	var r attemptResult
	data, err := os.ReadFile(filepath.Join(dir, resultFile))
	if err != nil {
		return r, err
	}
	err = json.Unmarshal(data, &r)
	return r, err
}
