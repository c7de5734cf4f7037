package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/hub/steps"
)

// checkout makes dir a detached worktree of commit, from the agent's
// own clone of remote (a bare repository under the work directory, made
// at the first step of that remote), fetching the commit when the clone
// lacks it.
func (a *Agent) checkout(ctx context.Context, s steps.Step, dir string) error {
	remote, commit := s.Remote, s.Commit
	if remote == "" && !s.Bundle {
		return fmt.Errorf("the step names commit %s but no remote to fetch it from", commit)
	}
	a.git.Lock()
	defer a.git.Unlock()
	repo := a.clonePath(remote)
	if _, err := os.Stat(repo); os.IsNotExist(err) {
		if err := mkdirAll(filepath.Dir(repo)); err != nil {
			return err
		}
		if err := git(ctx, "", "init", "--quiet", "--bare", repo); err != nil {
			return err
		}
	}
	if git(ctx, repo, "cat-file", "-e", commit+"^{commit}") != nil && s.Bundle {
		file := filepath.Join(a.o.WorkDir, "bundles", commit+".bundle")
		if err := mkdirAll(filepath.Dir(file)); err != nil {
			return err
		}
		if err := a.c.FetchBundle(ctx, commit, file); err != nil {
			return fmt.Errorf("the bundle of %s: %w", commit, err)
		}
		err := git(ctx, repo, "fetch", "--quiet", file, "HEAD")
		_ = os.Remove(file)
		if err != nil {
			return err
		}
	} else if git(ctx, repo, "cat-file", "-e", commit+"^{commit}") != nil {
		// By id first (servers allow it for reachable commits); else every
		// branch, which holds it if it was pushed at all.
		if err := git(ctx, repo, "fetch", "--quiet", remote, commit); err != nil {
			if err2 := git(ctx, repo, "fetch", "--quiet", remote, "+refs/heads/*:refs/remotes/daokit/*"); err2 != nil {
				return err
			}
		}
	}
	_ = os.RemoveAll(dir) // a delivery's folder is its own; a leftover is an old try's
	_ = git(ctx, repo, "worktree", "prune")
	return git(ctx, repo, "worktree", "add", "--quiet", "--detach", "--force", dir, commit)
}

// removeWorktree removes a step's worktree once its end is sent.
func (a *Agent) removeWorktree(remote, dir string) {
	a.git.Lock()
	defer a.git.Unlock()
	_ = git(context.Background(), a.clonePath(remote), "worktree", "remove", "--force", dir)
}

// clonePath is where the agent keeps its clone of remote ("" for the
// one that bundles are fetched into).
func (a *Agent) clonePath(remote string) string {
	h := sha256.Sum256([]byte(remote))
	return filepath.Join(a.o.WorkDir, "clones", hex.EncodeToString(h[:8])+".git")
}

// git runs git in dir (a bare repository, or "" for none), its error
// carrying git's own words.
func git(ctx context.Context, repo string, args ...string) error {
	if repo != "" {
		args = append([]string{"--git-dir", repo}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }
