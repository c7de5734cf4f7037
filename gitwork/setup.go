package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/internal/proc"
)

// DefaultSetupScript is where a repository keeps the script that prepares
// a fresh worktree (installs dependencies, copies an .env file).
const DefaultSetupScript = ".daokit/worktree-setup.sh"

// setupKey is the repository-local git setting that records the person's
// permission: a repository's script is code from whoever wrote the
// repository, so it runs only after its owner said yes once (agent-deck
// #1810), and the answer lives with the repository, not with daokit.
const setupKey = "daokit.allowSetup"

// SetupAllowed reports whether the person allowed the repository's set-up
// script.
func (r *Repo) SetupAllowed(ctx context.Context) bool {
	v, err := line(ctx, r.Top, "config", "--local", "--type=bool", setupKey)
	return err == nil && v == "true"
}

// AllowSetup records (or, with allow false, withdraws) the permission.
func (r *Repo) AllowSetup(ctx context.Context, allow bool) error {
	if !allow {
		_, err := run(ctx, r.Top, "config", "--local", "--unset-all", setupKey)
		if exitCode(err) == 5 { // was not set
			return nil
		}
		return err
	}
	_, err := run(ctx, r.Top, "config", "--local", setupKey, "true")
	return err
}

// ErrSetupTimeout is returned when a set-up script outlives its timeout;
// its whole process group is killed.
var ErrSetupTimeout = errors.New("gitwork: set-up script timed out")

// Setup is how a set-up script went.
type Setup struct {
	// Ran is false when the worktree has no such script.
	Ran bool
	// Output is what the script printed (standard output and error).
	Output []byte
}

// setupOutputMax is how much of a set-up script's output is kept (its
// end): an installer may print megabytes.
const setupOutputMax = 64 << 10

// RunSetup runs script (relative to the worktree's top) in the worktree
// at path with sh, bounded by timeout, through the process runtime: its
// whole tree dies at the timeout, at ctx's end and when it exits (a
// daemon it started must not outlive it). A missing script is not an
// error.
func RunSetup(ctx context.Context, path, script string, timeout time.Duration) (Setup, error) {
	full := filepath.Join(path, script)
	if _, err := os.Stat(full); errors.Is(err, os.ErrNotExist) {
		return Setup{}, nil
	}
	cmd := exec.Command("sh", full)
	cmd.Dir = path
	out := &proc.Tail{Max: setupOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	// A grandchild that keeps the output pipe open must not keep us.
	cmd.WaitDelay = time.Second
	o := proc.Run(ctx, cmd, timeout)
	res := Setup{Ran: true, Output: []byte(out.String())}
	if o.TimedOut {
		return res, ErrSetupTimeout
	}
	if o.Err != nil && !(o.Started && !o.Cancelled && errors.Is(o.Err, exec.ErrWaitDelay)) {
		return res, fmt.Errorf("set-up script %s: %w", script, o.Err)
	}
	return res, nil
}
