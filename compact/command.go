package compact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// waitDelay bounds how long a finished or killed hook command may keep
// its output pipes open through children it left behind.
const waitDelay = 500 * time.Millisecond

// stderrTail is how much of a command's stderr a Result quotes.
const stderrTail = 2048

// runCommand runs a hook command with the context on stdin and reads the
// new context from stdout. The command runs in a process group of its
// own, killed as a whole on timeout or cancellation and once the command
// has exited, so no process outlives its hook.
func (h *Hooks) runCommand(ctx context.Context, hk *hook, c *Context, res Result) (*Context, Result) {
	spec := hk.spec
	input, _ := c.MarshalJSON() // cannot fail
	digest := sha256.Sum256(input)
	if spec.Idempotent {
		if cached := h.cached(hk, digest); cached != nil {
			res.Code = CodeCached
			return cached, res
		}
	}
	hctx, cancel := context.WithTimeout(ctx, hk.timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), "DAOKIT_HOOK_POINT="+hk.point.String(), "DAOKIT_HOOK_NAME="+hk.name)
	cmd.Env = append(cmd.Env, spec.Env...)
	cmd.Stdin = bytes.NewReader(input)
	stdout := &cappedBuffer{max: spec.MaxOutput, full: cancel}
	if stdout.max == 0 {
		stdout.max = DefaultMaxOutput
	}
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	err := cmd.Run()
	killProcessGroup(cmd)

	fail := func(status Status, code Code, reason string) (*Context, Result) {
		res.Status, res.Code, res.Reason = status, code, reason
		return nil, res
	}
	var exitErr *exec.ExitError
	switch {
	case stdout.overflow:
		return fail(StatusFailed, CodeOutputTooLarge, fmt.Sprintf("printed more than %d bytes", stdout.max))
	case ctx.Err() != nil:
		return fail(StatusSkipped, CodeCancelled, ctx.Err().Error())
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		return fail(StatusTimeout, CodeTimeout, fmt.Sprintf("killed after %s", hk.timeout))
	case errors.As(err, &exitErr):
		return fail(StatusFailed, CodeExit, withStderr(exitErr.Error(), stderr.String()))
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay only says that a child kept stdout open after the
		// command exited successfully; the group is gone now.
		return fail(StatusFailed, CodeStart, err.Error())
	}
	next, perr := Parse(stdout.buf.Bytes())
	if perr != nil {
		return fail(StatusFailed, CodeInvalidOutput, withStderr(perr.Error(), stderr.String()))
	}
	if spec.Idempotent {
		h.remember(hk, digest, next)
	}
	return next, res
}

// cached returns a copy of the output an idempotent command gave for the
// same input, or nil.
func (h *Hooks) cached(hk *hook, digest [32]byte) *Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	if hk.memo.out == nil || hk.memo.digest != digest {
		return nil
	}
	return hk.memo.out.Clone()
}

func (h *Hooks) remember(hk *hook, digest [32]byte, out *Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hk.memo = memo{digest: digest, out: out.Clone()}
}

func withStderr(msg, stderr string) string {
	if stderr = strings.TrimSpace(stderr); stderr == "" {
		return msg
	}
	return msg + ": " + stderr
}

// cappedBuffer keeps up to max bytes. Past that it calls full, which
// stops the command, and discards the rest, so the command never blocks
// on a pipe nobody reads. It is only an io.Writer: embedding bytes.Buffer
// would hand io.Copy its ReadFrom and bypass the cap.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	full     func()
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.overflow {
		return len(p), nil
	}
	if b.buf.Len()+len(p) > b.max {
		b.overflow = true
		b.full()
		return len(p), nil
	}
	return b.buf.Write(p)
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct {
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - stderrTail; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
