// Package natsbox is the outbox on a daokit hub (issue 31, item 5): the
// outbox.Backend of `[outbox] backend = "nats"`, so that the Leads of one
// team can run on any host that reaches the hub.
//
// The root's outbox stream (hub/naming: DAOKIT_<root>_OUTBOX) is the
// whole outbox. An Apply that records a Trigger is ONE atomic batch
// (nats-server's AllowAtomicPublish): the change record (the issues
// opened, comments, events and touched issues, with their ids already
// assigned), one trigger key per new Trigger, each expecting its subject
// to be empty (WithBatchExpectLastSequencePerSubject(0), so the hub
// itself refuses a trigger recorded twice), and the reader's cursor,
// committed last. An Apply that records no trigger is one message (the
// record with the cursor in it), which the hub stores whole or not at
// all by itself: an atomic batch costs the hub a staging store of its
// own, about 15 ms here against 0.5 ms for one message.
//
// Either way the first message expects the stream's last sequence to be
// the one the change was computed against, so a change commits only on
// the state it read: that is SQLite's IMMEDIATE transaction, and it is
// what makes Op.IfAssignee, Limits, the event ids and the issue ids exact
// when two hosts race. A racer that lost reads the newer state and
// computes again.
//
// Every client keeps the outbox in memory, read from the stream (direct
// batch gets) up to the stream's last sequence before each read, so a
// read sees every change acknowledged before it began. Only Init makes
// the stream; Open refuses a root without one, as outbox.OpenSQLite
// refuses a missing database.
package natsbox
