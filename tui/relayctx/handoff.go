package relayctx

import (
	"context"
	"encoding/json"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
)

// opHandoffApplied is the controller's event after a takeover applied a
// handoff package (vocab.OpHandoffApplied).
const opHandoffApplied = "HANDOFF_APPLIED"

// HandoffMsg carries the handoff package read after a takeover.
type HandoffMsg struct {
	Package ledger.HandoffPackage
	Err     error
}

// loadHandoff reads and checks the handoff package in a command.
func (m *Model) loadHandoff() tea.Cmd {
	path := m.policy.HandoffPath
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		data, err := ledger.ReadFile(path, ledger.MaxDocumentBytes) // never a link, never a blocking FIFO
		if err != nil {
			return HandoffMsg{Err: fmt.Errorf("read handoff package: %w", err)}
		}
		pkg, err := ledger.ParseHandoffPackage(data)
		if err == nil {
			err = pkg.Validate()
		}
		if err != nil {
			return HandoffMsg{Err: fmt.Errorf("handoff package: %w", err)}
		}
		return HandoffMsg{Package: pkg}
	}
}

// restore replaces the context after a takeover: what was recorded before
// it (logs, status reports, failure noise of the old holder) is stale, so
// the window starts again from the package's keep set and evidence.
func (m *Model) restore(ctx context.Context, pkg ledger.HandoffPackage) tea.Cmd {
	fresh := &compact.Context{}
	f := compact.Facts{
		Goal:              pkg.Goal,
		Constraints:       pkg.Constraints,
		LatestInstruction: pkg.LatestInstruction,
		CurrentBlockers:   pkg.CurrentBlockers,
	}
	if pkg.RouteSummary != nil {
		f.Route = *pkg.RouteSummary
	}
	fresh.SetFacts(f)
	m.evidence = map[string]bool{}
	m.perStep = map[string]int{}
	for _, p := range pkg.EvidencePaths {
		if raw, err := json.Marshal(p); err == nil && fresh.Append(compact.EvidencePaths, raw) == nil {
			m.evidence[p] = true
		}
	}
	m.cur = fresh
	// The person's constraints outlive a takeover.
	m.addConstraints(pkg.Constraints)
	m.synced = compact.Facts{}
	m.setFacts(compact.Facts{})
	// A compaction running on the old context must not bring it back.
	m.discard = m.inFlight
	m.since = nil
	m.restores++
	m.dirty = true
	m.log.Debug("relay context restored from the handoff package", "task_id", pkg.TaskID, "run_id", pkg.RunID)
	return m.save(ctx)
}

// Restores counts the contexts restored from handoff packages.
func (m *Model) Restores() int { return m.restores }
