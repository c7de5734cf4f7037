package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/internal/proc"
)

// waitDelay bounds how long a finished or killed hook command may keep
// its output pipes open through children it left behind.
const waitDelay = 500 * time.Millisecond

// stderrTail is how much of a command's stderr a Result quotes.
const stderrTail = 2048

// Command is one checked hook command, ready to run. It remembers the
// last output of an idempotent command. A Command is safe for
// concurrent use.
type Command struct {
	spec Spec
	mu   sync.Mutex
	memo memo // last output of an idempotent command, guarded by mu
}

// memo remembers an idempotent command's last input and output.
type memo struct {
	digest [32]byte
	out    []byte
}

// NewCommand checks spec and returns its Command. A zero timeout means
// DefaultTimeout, a zero MaxOutput DefaultMaxOutput.
func NewCommand(spec Spec) (*Command, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec.Command = append([]string(nil), spec.Command...)
	spec.Env = append([]string(nil), spec.Env...)
	if spec.Timeout <= 0 {
		spec.Timeout = DefaultTimeout
	}
	if spec.MaxOutput == 0 {
		spec.MaxOutput = DefaultMaxOutput
	}
	return &Command{spec: spec}, nil
}

// Point returns the point the command runs at.
func (c *Command) Point() Point { return c.spec.Point }

// Name returns the command's name, unique at its point.
func (c *Command) Name() string { return c.spec.Name }

// Run runs the command with input on stdin and returns what it printed
// on stdout, a JSON object, when the Result's status is StatusOK. The
// command runs through the process runtime (internal/proc), its tree
// killed as a whole on timeout or cancellation and once the command has
// exited, so no process outlives its hook. The step's environment in ctx
// (proc.WithStep) reaches it.
func (c *Command) Run(ctx context.Context, input []byte) ([]byte, Result) {
	res := Result{Name: c.spec.Name, Point: c.spec.Point}
	start := time.Now()
	out := c.run(ctx, input, &res)
	res.Duration = time.Since(start)
	return out, res
}

func (c *Command) run(ctx context.Context, input []byte, res *Result) []byte {
	fail := func(status Status, code Code, reason string) []byte {
		res.Status, res.Code, res.Reason = status, code, reason
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fail(StatusSkipped, CodeCancelled, err.Error())
	}
	spec := c.spec
	digest := sha256.Sum256(input)
	if spec.Idempotent {
		if cached := c.cached(digest); cached != nil {
			res.Code = CodeCached
			return cached
		}
	}
	hctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), "DAOKIT_HOOK_POINT="+spec.Point.String(), "DAOKIT_HOOK_NAME="+spec.Name)
	cmd.Env = append(cmd.Env, spec.Env...)
	cmd.Stdin = bytes.NewReader(input)
	stdout := &cappedBuffer{max: spec.MaxOutput, full: cancel}
	stderr := &proc.Tail{Max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	// The runtime kills the hook's whole tree on timeout, cancellation
	// (an overflow cancels too) and once it has exited.
	err := proc.Run(hctx, cmd, 0).Err

	var exitErr *exec.ExitError
	switch {
	case stdout.overflow:
		return fail(StatusFailed, CodeOutputTooLarge, fmt.Sprintf("printed more than %d bytes", stdout.max))
	case ctx.Err() != nil:
		return fail(StatusSkipped, CodeCancelled, ctx.Err().Error())
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		return fail(StatusTimeout, CodeTimeout, fmt.Sprintf("killed after %s", spec.Timeout))
	case errors.As(err, &exitErr):
		return fail(StatusFailed, CodeExit, WithStderr(exitErr.Error(), stderr.String()))
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay only says that a child kept stdout open after the
		// command exited successfully; the group is gone now.
		return fail(StatusFailed, CodeStart, err.Error())
	}
	out := bytes.TrimSpace(stdout.buf.Bytes())
	if err := checkObject(out); err != nil {
		return fail(StatusFailed, CodeInvalidOutput, WithStderr(err.Error(), stderr.String()))
	}
	if spec.Idempotent {
		c.remember(digest, out)
	}
	return out
}

// errNotObject is the reason for output that is JSON but not an object.
var errNotObject = errors.New("output must be a JSON object")

// checkObject reports why out is not one JSON object, or nil.
func checkObject(out []byte) error {
	if !json.Valid(out) {
		var v any
		return fmt.Errorf("parse output: %w", json.Unmarshal(out, &v))
	}
	if out[0] != '{' {
		return errNotObject
	}
	return nil
}

// cached returns a copy of the output an idempotent command gave for the
// same input, or nil.
func (c *Command) cached(digest [32]byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.memo.out == nil || c.memo.digest != digest {
		return nil
	}
	return bytes.Clone(c.memo.out)
}

func (c *Command) remember(digest [32]byte, out []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.memo = memo{digest: digest, out: bytes.Clone(out)}
}

// WithStderr appends the end of a hook's stderr to a reason, which is
// how the hook explains itself in its own words.
func WithStderr(msg, stderr string) string {
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
