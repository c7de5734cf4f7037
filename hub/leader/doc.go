// Package leader is one fenced leader per root on a daokit hub (issue 31,
// item 3). A controller whose daokit.toml has [hub] campaigns for its
// root's lease, a key in the root's lease bucket (hub/naming) that
// expires after the lease's TTL unless renewed: Campaign creates it
// (only one creator wins) and a goroutine updates it every TTL/3 with
// the revision it last wrote, so that a holder that lost it learns so at
// its next renewal.
//
// The fence is the ledger stream, not the lease: every events.jsonl line
// is published as one message, the same bytes, with the stream's
// expected last sequence (Append, the ledger.Replica the controller's
// store calls before each write). A successor's first append (the
// "elected" record, written at once) moves the stream on, so a deposed
// leader's next publish is refused by the hub whatever its clock or its
// lease says; it then learns it was deposed, refuses every later write,
// and closes Deposed(). A leader also stops publishing by itself once its
// lease has lapsed on its own (monotonic) clock until a renewal says
// whether it still holds it: a leader paused past its TTL writes nothing
// until it knows.
//
// Ordering: the hub first, then the files. A line is written to
// events.jsonl only after the hub holds it, so nothing the controller
// acknowledges (after the local fsync) can be missing from the hub; a
// line the hub holds but this host lost (a crash between the two) is
// written back by the next leader's Reconcile, on this host or another.
// While the hub is unreachable, Append waits and retries (an outage:
// the controller's writes, and so its acknowledgements, wait), and gives
// up only when the controller stops.
//
// Documents (pipeline_state.json, heartbeat_status.json,
// process_leases.json, …) are published after they are written, newest
// version only, into the root's document bucket with the revision this
// leader last wrote (a successor's first write refuses the deposed
// leader's), so that a mirror (hub/mirror) or a successor on another
// host rebuilds the root.
package leader
