package issues

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/tui/live"
)

// TailLines is how many of the last lines of a Worker's output a thread
// shows; the log view (F5) has the whole of it.
const TailLines = 12

// Worker is what an open issue's Worker did: its latest attempt, its
// heartbeat while it runs, the tail of its output and its change.
type Worker struct {
	Role  string
	Issue int64
	// Attempts is the folder of its attempts (roster.IssueAttemptsDir),
	// what the log view follows.
	Attempts string
	// Attempt is the latest attempt kept (0: none yet); Status its
	// Lead's word on it while it runs or waits for a restart (nil
	// otherwise), Ended that it exited on its own (its result is kept).
	Attempt int
	Status  *roster.WorkerStatus
	Ended   bool
	// Tail are the last lines of its stdout.
	Tail []string
	// Files is its worktree's change against where it left its base;
	// Diffed says it was read by this load (else the last one's stands,
	// the Worker having done nothing since), DiffErr why it could not be.
	Files   []gitwork.FileDiff
	Diffed  bool
	DiffErr error
	// Mark is what the change was last read at.
	Mark Mark
}

// Mark is what a Worker's change depends on: its attempt, the size of
// its output and whether it ended. The change is read again only when
// the mark moved, so that an open thread runs git once per sign of work,
// not once a second.
type Mark struct {
	Attempt int
	Size    int64
	Ended   bool
}

// readWorker reads the Worker of issue (addressed to role); prev is the
// mark the shown change was read at (zero: none shown). It returns nil
// when the issue has no Worker (no role, no attempt, none running).
func readWorker(ctx context.Context, wf *team.Workflow, roles []roster.RoleView, role string, issue int64, prev Mark) *Worker {
	if role == "" {
		return nil
	}
	dir := roster.StatusDir(wf)
	w := &Worker{Role: role, Issue: issue, Attempts: roster.IssueAttemptsDir(dir, role, issue)}
	for _, v := range roles {
		for i, s := range v.Workers {
			if v.Role == role && s.Issue == issue {
				w.Status = &v.Workers[i]
			}
		}
	}
	atts, err := roster.AttemptsIn(w.Attempts)
	if err == nil && len(atts) > 0 {
		w.Attempt = atts[len(atts)-1]
	}
	if w.Attempt == 0 && w.Status == nil {
		return nil
	}
	logs := roster.AttemptDir(dir, role, issue, w.Attempt)
	if _, err := os.Stat(filepath.Join(logs, roster.AttemptResultFile)); err == nil {
		w.Ended = w.Status == nil || w.Status.Attempt != w.Attempt
	}
	var size int64
	w.Tail, size, err = live.TailLines(filepath.Join(roster.AttemptLogDir(logs), "stdout.log"), TailLines)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.Tail = []string{err.Error()}
	}
	w.Mark = Mark{Attempt: w.Attempt, Size: size, Ended: w.Ended}
	if w.Mark == prev {
		return w
	}
	tree := roster.WorktreePath(wf.Dir, role, issue)
	if w.Status != nil && w.Status.Worktree != "" {
		tree = w.Status.Worktree
	}
	w.Files, w.DiffErr = live.WorkerChange(ctx, wf.RepoDir(role), tree, roster.WorktreeBranch(role, issue))
	w.Diffed = true
	return w
}
