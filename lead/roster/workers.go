package roster

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Where a Lead's Workers leave their work, declared here (not in lead)
// so that the window, which may not reach the process runtime, finds a
// Worker's logs and worktree by the same rules the Lead writes them by.
//
// Attempts: <status dir>/workers/<role>/<issue>/<attempt>/ holds
// stdout.log, stderr.log and, once the Worker exited on its own,
// result.json. Attempts count from 1 and only grow.
//
// Worktrees: <outbox root>/team-worktrees/<role>/<issue>, on branch
// daokit-team/<role>/<issue>.

// WorkersDir is the folder of role's Worker attempts.
func WorkersDir(statusDir, role string) string { return filepath.Join(statusDir, "workers", role) }

// IssueAttemptsDir is the folder of the attempts of role's Worker on
// issue.
func IssueAttemptsDir(statusDir, role string, issue int64) string {
	return filepath.Join(WorkersDir(statusDir, role), strconv.FormatInt(issue, 10))
}

// AttemptDir is the folder of one attempt of role's Worker on issue.
func AttemptDir(statusDir, role string, issue int64, attempt int) string {
	return filepath.Join(IssueAttemptsDir(statusDir, role, issue), strconv.Itoa(attempt))
}

// Attempts lists the attempts kept for role's Worker on issue, oldest
// first (none: an empty list and no error).
func Attempts(statusDir, role string, issue int64) ([]int, error) {
	return AttemptsIn(IssueAttemptsDir(statusDir, role, issue))
}

// AttemptsIn lists the attempts kept in an issue's attempts folder
// (IssueAttemptsDir), oldest first.
func AttemptsIn(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
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

// AttemptResultFile is the name of an attempt's result record, written
// by its Lead once the Worker exited on its own.
const AttemptResultFile = "result.json"

// WorktreesDir is the folder, in the outbox root, that holds role's
// Workers' worktrees: outside the outbox's folder, which the guard makes
// read-only for Workers, and apart from the controller's step worktrees
// (and their branch prefix), whose prune must not take a worktree a
// Worker is in.
func WorktreesDir(outboxRoot, role string) string {
	return filepath.Join(outboxRoot, "team-worktrees", role)
}

// WorktreePath is the worktree of role's Worker on issue.
func WorktreePath(outboxRoot, role string, issue int64) string {
	return filepath.Join(WorktreesDir(outboxRoot, role), strconv.FormatInt(issue, 10))
}

// WorktreeBranch is the branch of role's worktree for issue
// (daokit-team/<role>/<issue>).
func WorktreeBranch(role string, issue int64) string {
	return "daokit-team/" + role + "/" + strconv.FormatInt(issue, 10)
}
