package hooks

import (
	"context"
	"fmt"
	"sync"
)

// Set is the hook commands of daokit.toml by point, run in the order they
// were added, each on the output of the one before. The zero value has
// no hooks. A Set is safe for concurrent use.
type Set struct {
	mu   sync.Mutex
	cmds []*Command
}

// Add checks spec and registers its command. Names are unique per point
// (ErrDuplicateHook).
func (s *Set) Add(spec Spec) error {
	cmd, err := NewCommand(spec)
	if err != nil {
		return fmt.Errorf("add hook: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, other := range s.cmds {
		if other.Point() == cmd.Point() && other.Name() == cmd.Name() {
			return fmt.Errorf("add hook %q at %s: %w", cmd.Name(), cmd.Point(), ErrDuplicateHook)
		}
	}
	s.cmds = append(s.cmds, cmd)
	return nil
}

// At returns the commands at p, in the order they run.
func (s *Set) At(p Point) []*Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Command
	for _, c := range s.cmds {
		if c.Point() == p {
			out = append(out, c)
		}
	}
	return out
}

// Outcome is the result of running the hooks of one point.
type Outcome struct {
	// Output is what the last hook that ended with StatusOK printed; the
	// input itself when none did.
	Output []byte
	// Results has one entry per hook at the point, in order.
	Results []Result
}

// Run runs the hooks at p, in order, the first on input and each next
// one on what the one before printed. A hook that fails, times out or
// prints something unusable is skipped: its Result says why and the next
// hook sees the output from before it. When ctx ends, the running hook is
// stopped and the rest are skipped.
func (s *Set) Run(ctx context.Context, p Point, input []byte) Outcome {
	out := Outcome{Output: input}
	for _, c := range s.At(p) {
		next, res := c.Run(ctx, out.Output)
		if res.Status == StatusOK {
			out.Output = next
		}
		out.Results = append(out.Results, res)
	}
	return out
}
