package proc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// EnvMarker is the variable that marks every process started through
// this package, and everything those start.
const EnvMarker = "DAOKIT_PROC"

// Scope is the set of processes one daokit ledger root owns: its id
// prefixes their markers and names their cgroup folder, so that a
// successor controller of the same root finds them.
type Scope struct {
	id  string
	seq atomic.Uint64

	mu sync.Mutex
	// idle are emptied cgroups kept for the next trees: making and
	// removing one costs more than the rest of the runtime's work.
	idle []*cgroup
}

// NewScope returns the scope of a ledger root.
func NewScope(root string) *Scope {
	sum := sha256.Sum256([]byte(root))
	return &Scope{id: hex.EncodeToString(sum[:6])}
}

// ID returns the scope's id, the first part of its markers.
func (s *Scope) ID() string { return s.id }

// ownScope is the scope of children started with no scope in their
// context: the scope of the marker this process inherited (a Lead's
// Workers belong to the controller's root that started the Lead, and a
// successor of that controller sweeps them), else the process's own.
var ownScope = inheritedScope(os.Getenv(EnvMarker))

func inheritedScope(marker string) *Scope {
	if id, _, ok := strings.Cut(marker, "/"); ok && id != "" && strings.Trim(id, "0123456789abcdefp") == "" {
		return &Scope{id: id}
	}
	return &Scope{id: "p" + strconv.Itoa(os.Getpid())}
}

// token names one start uniquely: this process's pid and a sequence
// number. Sweep spares the tokens of its own process.
func (s *Scope) token() string {
	return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(s.seq.Add(1), 10)
}

// ownToken reports whether a marker's token is one this process made.
func ownToken(token string) bool {
	pid, _, _ := strings.Cut(token, "-")
	return pid == strconv.Itoa(os.Getpid())
}

type jobKey struct{}

// job is what a context tells the processes started on its behalf.
type job struct {
	scope *Scope
	label string
	env   []string
}

func jobOf(ctx context.Context) job {
	j, _ := ctx.Value(jobKey{}).(job)
	if j.scope == nil {
		j.scope = ownScope
	}
	return j
}

// WithScope returns a context whose processes belong to s.
func WithScope(ctx context.Context, s *Scope) context.Context {
	j, _ := ctx.Value(jobKey{}).(job)
	j.scope = s
	return context.WithValue(ctx, jobKey{}, j)
}

// WithStep returns a context whose processes are started for one step:
// label names it in their marker (a step id), and env (KEY=value) is
// added to their environment, after the command's own (a later entry
// wins). It replaces what an outer WithStep said.
func WithStep(ctx context.Context, label string, env ...string) context.Context {
	j, _ := ctx.Value(jobKey{}).(job)
	j.label = label
	j.env = append([]string(nil), env...)
	return context.WithValue(ctx, jobKey{}, j)
}

// cleanLabel keeps a label to the characters a marker and a cgroup
// folder name can hold.
func cleanLabel(s string) string {
	if s == "" {
		return "-"
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}
