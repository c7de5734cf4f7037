package relayctx

import (
	"fmt"

	"github.com/daokit/daokit/compact"
)

// EditedMsg carries the context file after someone edited it by hand
// while the window ran.
type EditedMsg struct {
	Data []byte
}

// edited takes a hand edit of the file as the context: the person's
// edit wins over what the window recorded since its last save, its
// constraints become the ones kept, and the self-check reads it at once
// (a fact removed by hand is marked until a compaction takes it from the
// ledger again). An edit that is not a context is reported and then
// overwritten by the next save.
func (m *Model) edited(data []byte) {
	m.saved = data
	c, err := compact.Parse(data)
	if err != nil {
		m.err = fmt.Errorf("relay context edited by hand: %w", err)
		m.dirty = true
		return
	}
	m.err = nil
	capLists(c)
	f := c.Facts()
	m.cur = c
	m.cut = m.policy.now()
	m.constraints = []string{}
	m.addConstraints(f.Constraints)
	m.missing = f.Missing()
	// A compaction running on the old context must not bring it back.
	m.discard = m.inFlight
	m.since = nil
	m.log.Debug("relay context edited by hand", "missing", fmt.Sprint(m.missing), "constraints", len(m.constraints))
}
