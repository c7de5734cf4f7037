package heal

import (
	"strconv"

	"github.com/daokit/daokit/ledger"
)

// fenceKey is the role_lifecycle key of a step's fencing generation.
func fenceKey(step string) string { return "fence:" + step }

// Fence returns the fencing generation of step (0 before any takeover).
// A worker or controller that acted under an older generation has been
// superseded: its writes are refused.
func Fence(p *ledger.PipelineState, step string) int {
	n, _ := strconv.Atoi(p.RoleLifecycle.Get(fenceKey(step)))
	return n
}

// bumpFence raises step's fencing generation by one and returns it.
func bumpFence(p *ledger.PipelineState, step string) int {
	n := Fence(p, step) + 1
	p.RoleLifecycle = p.RoleLifecycle.With(fenceKey(step), strconv.Itoa(n))
	return n
}
