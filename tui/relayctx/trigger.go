package relayctx

import (
	"time"

	"github.com/daokit/daokit/compact"
)

// Policy says when and how the window compacts its context.
type Policy struct {
	// Triggers are compact's thresholds; the window asks them after
	// every change (compact.Triggers.Decide).
	Triggers compact.Triggers
	// Hooks run the compaction: the built-in pre-compact hook and any
	// configured pre-compact commands. nil means compact.NewHooks().
	Hooks *compact.Hooks
	// Manual turns compaction off: the context is recorded and saved but
	// never compacted by itself (golden tests need figures that do not
	// depend on when a compaction finished).
	Manual bool
	// HandoffPath is the ledger's handoff_package.json. After a takeover
	// that applied it, the context restarts from its keep set. Empty: no
	// restore.
	HandoffPath string
	// Now is the clock of the keep set's updated_at; nil means time.Now.
	Now func() time.Time
}

func (p Policy) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// DefaultPolicy is compact's shipped thresholds with the built-in hook.
func DefaultPolicy() Policy { return Policy{Triggers: compact.DefaultTriggers()} }

// change is what happened since the window last asked the triggers and
// could act: a new instruction, and the health state before and after
// (a heartbeat status, or LEASE_TAKEOVER after a takeover). It
// accumulates while a compaction runs, so that nothing that should
// trigger the next one is forgotten.
type change struct {
	instruction  string
	healthBefore string
	healthAfter  string
	health       bool // healthBefore holds the state before the first change
}

func (c *change) instructionSent(text string) { c.instruction = text }

// healthIs records the health state now, given the one before.
func (c *change) healthIs(before, after string) {
	if !c.health {
		c.healthBefore, c.health = before, true
	}
	c.healthAfter = after
}

// compactChange is the change as compact.Triggers.Decide wants it.
func (c *change) compactChange() compact.Change {
	ch := compact.Change{Instruction: c.instruction}
	if c.health {
		ch.HealthBefore, ch.HealthAfter = c.healthBefore, c.healthAfter
	}
	return ch
}
