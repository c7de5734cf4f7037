package steps

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// A step that ran in a worktree comes back as a patch: everything its
// process changed from the step's base commit (committed or not, new
// files included), binary-safe, in the root's bundle bucket under
// PatchName. The relay applies it, uncommitted, to the step's worktree
// on the controller's host, where the person reviews and accepts it as
// a local step's change.

// PatchName is the object name of the patch of a dispatch's delivery.
func PatchName(key string, dispatch, delivery int) string {
	return fmt.Sprintf("%s-%d-%d.patch", key, dispatch, delivery)
}

// DiffFrom returns what the worktree at dir changed from base, as a
// binary patch (empty: nothing). It stages everything first: new files
// are part of the change.
func DiffFrom(ctx context.Context, dir, base string) ([]byte, error) {
	if _, err := gitOut(ctx, dir, nil, "add", "-A"); err != nil {
		return nil, err
	}
	return gitOut(ctx, dir, nil, "diff", "--cached", "--binary", base)
}

// PublishPatch stores a patch under name.
func (c *Conn) PublishPatch(ctx context.Context, name string, patch []byte) error {
	obs, err := c.bundles(ctx)
	if err != nil {
		return err
	}
	_, err = obs.PutBytes(ctx, name, patch)
	return err
}

// ApplyPatch applies the patch name to the work tree that holds dir,
// uncommitted. A patch that is applied already (a relay that died after
// applying it, followed by its successor's) is left as it is.
func (c *Conn) ApplyPatch(ctx context.Context, dir, name string) error {
	obs, err := c.JS.ObjectStore(ctx, c.BundleBucket())
	if err != nil {
		return err
	}
	patch, err := obs.GetBytes(ctx, name)
	if err != nil {
		return fmt.Errorf("the patch %s: %w", name, err)
	}
	top, err := gitOut(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	root := strings.TrimSpace(string(top))
	if _, err := gitOut(ctx, root, patch, "apply", "--check", "--binary", "-"); err != nil {
		if _, rerr := gitOut(ctx, root, patch, "apply", "--check", "--binary", "-R", "-"); rerr == nil {
			return nil // applied already
		}
		return err
	}
	_, err = gitOut(ctx, root, patch, "apply", "--binary", "-")
	return err
}

// gitOut runs git in dir with stdin and returns its output, its error
// carrying git's own words.
func gitOut(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.Bytes(), nil
}
