package workflow

import "sync"

// Record is what a flow keeps of a finished step.
type Record struct {
	Output Output
	// Decision is set for judge steps.
	Decision *JudgeDecision
}

// Memory is where a flow keeps its finished steps, so that a flow run
// again (after a controller restart) skips them. The controller keeps it
// in the ledger; Remember must be durable when it returns.
type Memory interface {
	// Recall returns the record of a step that finished.
	Recall(stepID string) (Record, bool)
	// Remember records a finished step. An error stops the flow.
	Remember(stepID string, role Role, rec Record) error
}

// MapMemory is a Memory in a map, for flows that need not survive their
// process. The zero value is ready to use.
type MapMemory struct {
	mu sync.Mutex
	m  map[string]Record
}

// Recall implements Memory.
func (m *MapMemory) Recall(stepID string) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[stepID]
	return r, ok
}

// Remember implements Memory.
func (m *MapMemory) Remember(stepID string, _ Role, rec Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]Record{}
	}
	m.m[stepID] = rec
	return nil
}
