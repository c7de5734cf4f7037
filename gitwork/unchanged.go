package gitwork

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Unchanged reports whether the step's worktree wt holds nothing that
// Deliver could bring into its base: no change to a tracked file, no
// untracked file git does not ignore, and neither its HEAD nor its
// branch holds a commit that wt.Base lacks. Ignored files are no change
// (nothing would commit them), though Remove still keeps a worktree that
// holds them.
//
// The common answers cost no git process: the files are compared with
// the worktree's index in process (see worktreeState) and HEAD and the
// branch are read from their ref files. git runs only for what that
// cannot settle: an untracked file (is it ignored?), a file whose index
// record cannot be trusted, a ref this reader does not know, or commits
// that moved away from the base.
func (r *Repo) Unchanged(ctx context.Context, wt Worktree) (bool, error) {
	if wt.Base == "" {
		return false, nil // nothing to compare with: a person decides
	}
	gitDir, err := worktreeGitDir(wt.Path)
	if err != nil {
		return false, err
	}
	same, err := r.filesUnchanged(ctx, wt.Path, gitDir)
	if err != nil || !same {
		return false, err
	}
	head, ok := readHead(gitDir)
	if !ok {
		if head, err = line(ctx, wt.Path, "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
			return false, err
		}
	}
	tip, ok := readRef(commonDir(gitDir), "refs/heads/"+wt.Branch)
	if !ok {
		if tip, err = r.Resolve(ctx, "refs/heads/"+wt.Branch); err != nil {
			tip = "" // the branch is gone: only HEAD holds the work
		}
	}
	for _, c := range []string{head, tip} {
		if c == "" || c == wt.Base {
			continue
		}
		if in, err := r.IsAncestor(ctx, c, wt.Base); err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

// filesUnchanged reports whether the work tree at path has no change
// that a commit would take, asking git only what the index alone cannot
// tell: a tracked file whose record it cannot trust, and whether an
// untracked file is one the project's own .gitignore files ignore. The
// repository's shared info/exclude and a person's global excludes are
// not trusted for that: any step's agent can write them (`*` there
// would hide every new file of every worktree), and a step whose new
// files are hidden so did change something.
func (r *Repo) filesUnchanged(ctx context.Context, path, gitDir string) (bool, error) {
	state, tracked := trackedState(path, gitDir)
	switch state {
	case treeDirty:
		return false, nil
	case treeUnsure:
		out, err := run(ctx, path, "status", "--porcelain", "--untracked-files=no")
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			return false, err
		}
	}
	if tracked != nil && !untracked(path, tracked) {
		return true, nil
	}
	out, err := run(ctx, path, "ls-files", "--others", "--directory", "--no-empty-directory", "--exclude-per-directory=.gitignore")
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}

// commonDir is the folder a linked worktree's git dir shares with the
// main one (refs, packed-refs, config), or gitDir itself.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return common
}

// readHead returns the commit a worktree's HEAD names, read from its
// files; ok is false when only git can tell.
func readHead(gitDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		// A worktree's own refs (HEAD, bisect) are in its git dir; the
		// branches in the common one.
		return readRef(commonDir(gitDir), ref)
	}
	return s, isObjectID(s)
}

// readRef resolves the branch ref in the repository's common dir: its
// loose file, else its line in packed-refs. ok is false for anything
// else (a symbolic ref, the reftable format, a ref that is not there):
// git decides then.
func readRef(common, ref string) (string, bool) {
	if !strings.HasPrefix(ref, "refs/heads/") {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return "", false
	}
	if data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
		s := strings.TrimSpace(string(data))
		return s, isObjectID(s)
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(packed), "\n") {
		if id, name, ok := strings.Cut(strings.TrimSpace(l), " "); ok && name == ref {
			return id, isObjectID(id)
		}
	}
	return "", false
}

// isObjectID reports whether s is a full object id in hex (SHA-1 or
// SHA-256).
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
