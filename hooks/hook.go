package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/daokit/daokit/config"
)

// Point is a named moment in the controller's and the window's life at
// which hooks run.
type Point int

// Hook points, in the Python DAOKit's order.
const (
	// PreDispatch runs before the controller starts a step's worker;
	// the latest_instruction it leaves is what the worker gets.
	PreDispatch Point = iota + 1
	// PostAccept runs after a step passed acceptance; the controller
	// records its outcome and uses nothing else.
	PostAccept
	// PreCompact runs when the window compacts its context; compaction
	// itself is the built-in hook here.
	PreCompact
	// SessionStart runs once a controller serves its root.
	SessionStart
)

var pointNames = [...]string{PreDispatch: "pre-dispatch", PostAccept: "post-accept", PreCompact: "pre-compact", SessionStart: "session-start"}

// Points returns every hook point in order.
func Points() []Point { return []Point{PreDispatch, PostAccept, PreCompact, SessionStart} }

// String returns the point's name, e.g. "pre-compact".
func (p Point) String() string {
	if p < PreDispatch || p > SessionStart {
		return fmt.Sprintf("Point(%d)", int(p))
	}
	return pointNames[p]
}

// ParsePoint reads a point name as the Python DAOKit does: surrounding
// space ignored, any case, "_" for "-" ("PRE_COMPACT" is pre-compact). An
// unknown name is an *UnknownPointError.
func ParsePoint(s string) (Point, error) {
	name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	for _, p := range Points() {
		if pointNames[p] == name {
			return p, nil
		}
	}
	return 0, &UnknownPointError{Value: s}
}

// MarshalText writes the point's name.
func (p Point) MarshalText() ([]byte, error) {
	if p < PreDispatch || p > SessionStart {
		return nil, fmt.Errorf("marshal hook point: unknown point %d", int(p))
	}
	return []byte(pointNames[p]), nil
}

// UnmarshalText reads a point name with ParsePoint, so that configuration
// files can name points.
func (p *Point) UnmarshalText(text []byte) error {
	parsed, err := ParsePoint(string(text))
	if err != nil {
		return err
	}
	*p = parsed
	return nil
}

// UnknownPointError reports a hook point name that is not one of Points.
type UnknownPointError struct {
	Value string
}

// Error names the value and lists the points there are.
func (e *UnknownPointError) Error() string {
	names := make([]string, 0, len(pointNames))
	for _, p := range Points() {
		names = append(names, p.String())
	}
	return fmt.Sprintf("unknown hook point %q; expected one of: %s", e.Value, strings.Join(names, ", "))
}

// ErrDuplicateHook is returned when a hook name is already taken at its
// point.
var ErrDuplicateHook = errors.New("hook name already registered at this point")

// DefaultTimeout bounds a hook that sets no timeout of its own.
const DefaultTimeout = 10 * time.Second

// DefaultMaxOutput is how many bytes a hook command may print on stdout
// when its Spec sets no MaxOutput.
const DefaultMaxOutput = 64 << 20

// Spec configures a hook command. daokit.toml lists them as
//
//	[[hooks]]
//	point = "pre-compact"      # pre-dispatch, post-accept, pre-compact, session-start
//	name = "redact"            # unique at its point
//	command = ["jq", "."]      # argv, run without a shell
//	timeout = "5s"             # default 10s
//	dir = "."                  # working directory; the config loader resolves it against the root
//	env = ["LEVEL=2"]          # added to daokit's environment
//	max_output = 16777216      # bytes of stdout accepted; default 64 MiB
//	idempotent = true          # same input, same output: reuse the last output for the same input
//
// The command reads its point's input, a JSON object, on stdin and prints
// the object to continue with on stdout (for every point today a relay
// context: see docs/config.en.md). DAOKIT_HOOK_POINT
// and DAOKIT_HOOK_NAME name the hook in its environment.
type Spec struct {
	Point   Point         `toml:"point"`
	Name    string        `toml:"name"`
	Command []string      `toml:"command"`
	Timeout time.Duration `toml:"timeout"`
	Dir     string        `toml:"dir"`
	Env     []string      `toml:"env"`
	// MaxOutput caps stdout in bytes; a hook that prints more is killed
	// and skipped. 0 means DefaultMaxOutput.
	MaxOutput int `toml:"max_output"`
	// Idempotent promises that the command's output depends only on its
	// input. Command.Run then reuses the output of the last run whose input was
	// byte for byte the same, instead of running the command again; a
	// different input always runs it.
	Idempotent bool `toml:"idempotent"`
}

// Validate reports what makes the spec unusable.
func (s Spec) Validate() error {
	switch {
	case s.Point < PreDispatch || s.Point > SessionStart:
		return fmt.Errorf("hook %q: %w", s.Name, &UnknownPointError{Value: s.Point.String()})
	case strings.TrimSpace(s.Name) == "":
		return fmt.Errorf("hook at %s: name is empty", s.Point)
	case len(s.Command) == 0 || strings.TrimSpace(s.Command[0]) == "":
		return fmt.Errorf("hook %q: command is empty", s.Name)
	case s.Timeout < 0:
		return fmt.Errorf("hook %q: timeout must not be negative, got %s", s.Name, s.Timeout)
	case s.MaxOutput < 0:
		return fmt.Errorf("hook %q: max_output must not be negative, got %d", s.Name, s.MaxOutput)
	}
	for _, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("hook %q: env entry %q is not NAME=value", s.Name, kv)
		}
	}
	return nil
}

// Status is how a hook run ended.
type Status int

// Statuses of a Result. Only StatusOK hands the hook's output on.
const (
	// StatusOK means the hook ran and its output was taken.
	StatusOK Status = iota
	// StatusSkipped means the hook did not run (the run was cancelled first).
	StatusSkipped
	// StatusFailed means the hook failed or printed something unusable.
	StatusFailed
	// StatusTimeout means the hook ran past its timeout and was stopped.
	StatusTimeout
)

var statusNames = [...]string{"ok", "skipped", "failed", "timeout"}

// String returns the status name: ok, skipped, failed or timeout.
func (s Status) String() string {
	if s < StatusOK || s > StatusTimeout {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText writes the status name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Code is a stable reason code of a hook Result, for the window to show
// in the person's language.
type Code string

// Reason codes of a Result.
const (
	// CodeCached means an idempotent command's output for the same input was
	// reused (status ok).
	CodeCached Code = "HOOK_CACHED"
	// CodeCancelled means the run was cancelled before the hook started or
	// while it ran.
	CodeCancelled Code = "HOOK_CANCELLED"
	// CodeTimeout means the hook ran past its timeout.
	CodeTimeout Code = "HOOK_TIMEOUT"
	// CodeStart means the command could not be started.
	CodeStart Code = "HOOK_START_FAILED"
	// CodeExit means the command exited with a non-zero status.
	CodeExit Code = "HOOK_EXIT"
	// CodeOutputTooLarge means the command printed more than MaxOutput bytes.
	CodeOutputTooLarge Code = "HOOK_OUTPUT_TOO_LARGE"
	// CodeInvalidOutput means stdout was not a JSON object (or not the
	// object its point reads).
	CodeInvalidOutput Code = "HOOK_INVALID_OUTPUT"
	// CodeError means a Go hook returned an error or no output.
	CodeError Code = "HOOK_ERROR"
	// CodePanic means a Go hook panicked.
	CodePanic Code = "HOOK_PANIC"
)

// Result records one hook run. Reason details Code in English or in the
// hook's own words (the end of its stderr); it is empty when all went
// well.
type Result struct {
	Name     string        `json:"name"`
	Point    Point         `json:"point"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	Code     Code          `json:"code,omitempty"`
	Reason   string        `json:"reason,omitempty"`
}

// SpecOf turns a hook of daokit.toml, as config resolved it, into a
// Spec. An unknown point stays unknown, for Validate to report.
func SpecOf(h config.HookSpec) Spec {
	p, _ := ParsePoint(h.Point)
	return Spec{Point: p, Name: h.Name, Command: h.Command, Timeout: h.Timeout, Dir: h.Dir, Env: h.Env}
}
