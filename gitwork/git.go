package gitwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoGit is returned when the git command cannot be found.
var ErrNoGit = errors.New("gitwork: git not found")

// Error is a git command that failed: the arguments, its exit code and
// what it printed on standard error.
type Error struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *Error) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, strings.TrimSpace(e.Stderr))
}

// gitEnv is the environment every git command runs with: English,
// machine-stable output, and never a prompt that would hang a controller.
func gitEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		// A caller's GIT_DIR or GIT_WORK_TREE (set, for example, when
		// daokit runs inside a git hook) would redirect every command.
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") || strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LC_ALL=C", "LANGUAGE=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
}

// run runs git in dir and returns its standard output.
func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return runEnv(ctx, dir, nil, args...)
}

// runEnv is run with extra environment entries (a temporary index).
func runEnv(ctx context.Context, dir string, extra []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNoGit
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout.Bytes(), &Error{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
	}
	return nil, fmt.Errorf("git %s: %w", args[0], err)
}

// exitCode returns the exit code of a failed git command, or -1.
func exitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}

// line runs git and returns its output's first line, trimmed.
func line(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := run(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(s), nil
}
