package steps

import (
	"encoding/json"
)

// Who holds a step. The hub hands a step to another agent when the one
// holding it has not renewed it within AckWait, as it should; but it
// also does so while that agent still runs the step and renews it, after
// the hub restarts: JetStream keeps a delivery's last renewal in
// whole seconds and writes it to disk lazily, so a restarted hub can
// find a step well renewed a moment ago overdue, and redeliver it at
// once. The agent handed the step again then asks on the step's
// LiveSubject whether the agent of an earlier delivery still holds it
// (TypeAsk), and that agent, while its renewals stand, answers
// (TypeHeld). The asker runs the step only once nobody answered for a
// whole AckWait: by then an agent that holds it but cannot reach the hub
// has killed the step itself (its renewals lost for 3/4 of AckWait). The
// subject is no stream's: a question about now costs no disk write, and
// one lost (a hub restart) is asked again.
const (
	// TypeAsk: an agent handed Delivery of Dispatch asks whether an
	// earlier delivery's agent still holds the step.
	TypeAsk = "ask"
	// TypeHeld: the agent of Delivery of Dispatch holds the step (it
	// runs it and its renewals stand).
	TypeHeld = "held"
)

// TypeBeat: the agent of Delivery of Dispatch runs the step's process,
// which has used CPUMillis of CPU time so far (its own and that of the
// children it waited for). The agent sends one every beat interval
// while the process runs (see package agent), on the same subject as
// the asks: a beat tells the relay about now, so a lost one costs
// nothing and none is stored. The relay's controller judges the relay's
// silence and its CPU, and both say nothing of a step that computes on
// another host without printing: the relay, seeing the step's CPU time
// advance in the beats, says so in a line (see RelayIO.Computing), as a
// local worker's own CPU time keeps it from being judged hung.
const TypeBeat = "beat"

// LiveSubject is where the agents of key's step ask and answer who holds
// it, and where the one running it sends its beats.
func (c *Conn) LiveSubject(key string) string { return c.Root.LiveSubject(key) }

// PublishLive sends an ask, held or beat record on key's LiveSubject,
// without waiting (nothing stores it; one lost is sent again).
func (c *Conn) PublishLive(key string, r Record) error {
	r.V = Version
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return c.NC.Publish(c.LiveSubject(key), data)
}

// RecordSubject is the subject of key's start, line and skip records:
// an agent that runs a step watches it for a newer delivery's start.
func (c *Conn) RecordSubject(key string) string { return c.subject(key, TypeStart) }
