package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/daokit/daokit/internal/proc"
)

// PushTimeout bounds one push: a remote that never answers (an ssh host
// key prompt nobody sees, a dead proxy) must not hold an accept for ever.
const PushTimeout = 5 * time.Minute

// ErrPushTimeout is returned when a push outlived PushTimeout.
var ErrPushTimeout = errors.New("gitwork: git push timed out")

// Push sends branch to remote under the same name, never forced: a
// branch the remote holds at a commit that is not an ancestor is
// refused, as git refuses it. Pushing a branch the remote already holds
// at that commit is a success (an accept retried after a crash pushes
// again). git runs through the process runtime, so its helpers (ssh, a
// credential helper) die with it at the timeout or at ctx's end; the
// person's own credential set-up is used and never prompted for.
func (r *Repo) Push(ctx context.Context, remote, branch string) error {
	ref := "refs/heads/" + branch
	cmd := exec.Command("git", "push", "--quiet", "--porcelain", "--", remote, ref+":"+ref)
	cmd.Dir = r.Top
	cmd.Env = gitEnv()
	out := &proc.Tail{Max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	o := proc.Run(ctx, cmd, PushTimeout)
	switch {
	case o.TimedOut:
		return ErrPushTimeout
	case o.Cancelled:
		return fmt.Errorf("git push: %w", ctx.Err())
	case o.Err != nil && !o.Started:
		if errors.Is(o.Err, exec.ErrNotFound) {
			return ErrNoGit
		}
		return fmt.Errorf("git push: %w", o.Err)
	case o.Err != nil && !errors.Is(o.Err, exec.ErrWaitDelay):
		code := -1
		var ee *exec.ExitError
		if errors.As(o.Err, &ee) {
			code = ee.ExitCode()
		}
		return &Error{Args: []string{"push", remote, ref}, Code: code, Stderr: pushStderr(out.String())}
	}
	return nil
}

// pushStderr keeps what git said about the refusal: the porcelain
// lines of the rejected ref and git's own error lines.
func pushStderr(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "Done" || strings.HasPrefix(l, "To ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// RemoteURL is the URL git fetches remote from ("" and an error when
// the repository has no such remote).
func (r *Repo) RemoteURL(ctx context.Context, remote string) (string, error) {
	return line(ctx, r.Top, "remote", "get-url", "--", remote)
}
