package live

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/daokit/daokit/gitwork"
)

// TailLines returns the last n lines of the log at path (read from at
// most its last LogTail bytes), and the log's size. A log that does not
// exist yet has none.
func TailLines(path string, n int) ([]string, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	// A line is rarely longer than 2 KiB: read what n of them take, and
	// no more than a log read takes.
	from := max(size-min(int64(n+1)*2048, LogTail), 0)
	data := make([]byte, size-from)
	k, err := f.ReadAt(data, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, size, err
	}
	data = bytes.TrimLeft(data[:k], "\x00")
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if from > 0 && len(lines) > 1 {
		lines = lines[1:] // cut mid-line
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil, size, nil
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines[max(len(lines)-n, 0):], size, nil
}

// WorkerChange reads the change of a Worker's worktree against where it
// left its base: the worktree at tree while it exists (uncommitted edits
// included), else its branch. repoDir is the role's repository; a role
// folder that is no git repository has no change to read (nil, nil).
func WorkerChange(ctx context.Context, repoDir, tree, branch string) ([]gitwork.FileDiff, error) {
	repo, err := gitwork.Open(ctx, repoDir)
	if errors.Is(err, gitwork.ErrNotRepo) || errors.Is(err, gitwork.ErrNoGit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := repo.Resolve(ctx, "refs/heads/"+branch); err != nil {
		return nil, nil // no worktree made yet
	}
	baseBranch, err := repo.BaseBranch(ctx, "")
	if err != nil {
		return nil, err
	}
	base, err := repo.MergeBase(ctx, baseBranch, branch)
	if err != nil {
		return nil, err
	}
	var data []byte
	if _, serr := os.Stat(tree); serr == nil {
		data, err = gitwork.DiffWorktree(ctx, tree, base)
	} else {
		data, err = repo.DiffBranch(ctx, base, branch)
	}
	return gitwork.Parse(data), err
}
