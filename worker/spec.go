package worker

import (
	"errors"
	"syscall"
	"time"

	"github.com/daokit/daokit/worker/transcript"
)

// Defaults of a Spec's limits.
const (
	// DefaultLineLimit is where a Record's text is cut (64 KiB).
	DefaultLineLimit = 64 << 10
	// DefaultQueueLines and DefaultQueueBytes bound the records waiting
	// for a slow consumer; beyond them the oldest ordinary lines are
	// dropped (and counted).
	DefaultQueueLines = 1024
	DefaultQueueBytes = 4 << 20
	// DefaultStopGrace is a sensible time between SIGTERM and SIGKILL.
	DefaultStopGrace = 5 * time.Second
	// agentLineLimit is how much of one line the agent-CLI decoders see:
	// their JSON lines carry whole tool outputs and can be far longer than
	// a line worth showing.
	agentLineLimit = 8 << 20
	// stdinDelay bounds the wait for exec's copy of the instruction to
	// the worker's stdin once it has exited: a descendant that escaped
	// the group (setsid) could hold stdin open without reading for ever.
	stdinDelay = 2 * time.Second
)

// Spec says how to run one worker process.
type Spec struct {
	// Argv is the program and its arguments, placeholders already
	// expanded. Required. A program name without "/" is looked up in the
	// controller's PATH; a relative path is relative to Dir.
	Argv []string
	// Dir is the working directory; empty means the controller's.
	Dir string
	// Env is added to the controller's environment (or to BaseEnv),
	// later entries winning. LC_CTYPE is made UTF-8 if it is not already.
	Env []string
	// BaseEnv, when not nil, replaces the controller's environment as
	// the one Env is added to: a Lead's Worker must not inherit the
	// Lead's DAOKIT_ settings.
	BaseEnv []string
	// SysProcAttr, when set, is the start's attributes (a Lead's Worker:
	// killed with its Lead, in the guard's mount namespace); the runtime
	// still gives the child a process group of its own.
	SysProcAttr *syscall.SysProcAttr
	// OnExit, if set, is called once the worker's leader is reaped, with
	// how it exited, before its output is drained and Done is closed: an
	// owner that may die before it handles Done (a Lead, SIGKILLed)
	// records there the exit status that would die with it.
	OnExit func(Exit)
	// Stdin, when UseStdin is set, is written to the worker's standard
	// input, which is then closed. Otherwise stdin is /dev/null.
	Stdin    string
	UseStdin bool
	// Kind selects the decoder (see NewDecoder): "sim", "command",
	// "claude", "codex".
	Kind string
	// ArtifactDir, if set, receives stdout.log and stderr.log, which the
	// worker writes into itself: every byte it wrote (appended, so a
	// restart in the same folder keeps the earlier attempt). It is
	// created if missing.
	ArtifactDir string
	// ArtifactRoot, if set, is a folder ArtifactDir must lie beneath:
	// the folders between them are then opened (and made) one at a time
	// without following a link, and the logs are refused if they are
	// links, FIFOs or folders, so a link planted in artifacts/ cannot
	// make the worker's output land outside the ledger root.
	ArtifactRoot string
	// LogLimit is the most bytes each of stdout.log and stderr.log keeps;
	// past it the oldest bytes are punched out (the file keeps its length)
	// and about the newest half kept (counted in Stats.LogCutBytes; see
	// ReadLog). 0 or less means no limit.
	LogLimit int64
	// Timeout stops the worker after this long; 0 means no limit.
	Timeout time.Duration
	// StopGrace is the time between SIGTERM and SIGKILL when the worker
	// is stopped; 0 sends SIGKILL at once.
	StopGrace time.Duration
	// LineLimit cuts each Record's text; 0 means DefaultLineLimit.
	LineLimit int
	// QueueLines and QueueBytes bound the records waiting for the
	// consumer; 0 means the defaults.
	QueueLines int
	QueueBytes int
}

// Exit is how a worker's leader exited, as OnExit hears it.
type Exit struct {
	PID int
	// ExitCode is -1 when Signal ended the process.
	ExitCode int
	Signal   syscall.Signal
	// Stopped says why daokit stopped it, if it did before it exited.
	Stopped transcript.StopCause
}

// ErrNoCommand is returned by Start for a Spec without Argv.
var ErrNoCommand = errors.New("worker: no command")

func (s Spec) withDefaults() Spec {
	if s.LineLimit <= 0 {
		s.LineLimit = DefaultLineLimit
	}
	if s.QueueLines <= 0 {
		s.QueueLines = DefaultQueueLines
	}
	if s.QueueBytes <= 0 {
		s.QueueBytes = DefaultQueueBytes
	}
	return s
}

// readLimit is how much of a line is kept for decoding.
func (s Spec) readLimit() int {
	if s.Kind == "claude" || s.Kind == "codex" {
		return max(s.LineLimit, agentLineLimit)
	}
	return s.LineLimit
}
