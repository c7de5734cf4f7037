// Package natsbox is the outbox on a daokit hub (issue 31, item 5): the
// outbox.Backend of `[outbox] backend = "nats"`, so that the Leads of one
// team can run on any host that reaches the hub.
//
// The root's outbox stream (hub/naming: DAOKIT_<root>_OUTBOX) is the
// whole outbox: every Apply is ONE atomic batch (nats-server's
// AllowAtomicPublish) of a change record (the issues opened, comments,
// events and touched issues, with their ids already assigned), one
// trigger key per new Trigger and the reader's cursor, committed last.
// The batch's first message expects the stream's last sequence to be the
// one the change was computed against, so a batch commits only on the
// state it read: that is SQLite's IMMEDIATE transaction, and it is what
// makes Op.IfAssignee, Limits, the event ids and the issue ids exact when
// two hosts race. A racer that lost reads the newer state and computes
// again. Each trigger key also expects its subject to be empty
// (WithBatchExpectLastSequencePerSubject(0)), so the hub itself refuses
// a trigger recorded twice.
//
// Every client keeps the outbox in memory, read from the stream (direct
// batch gets) up to the stream's last sequence before each read, so a
// read sees every change acknowledged before it began.
package natsbox
