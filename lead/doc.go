// Package lead is a role's resident Lead (seed 003, scheme A): one
// process per role that reads the outbox through its cursor, claims the
// issues addressed to its role, dispatches short-lived Workers to the
// role's repo at most min(soft cap, hard cap) at a time, blocks issues on
// unmet dependencies and wakes when they close, posts the Workers'
// evidence back in the mailbox template, and writes accepted decisions
// to the project memory.
//
// Every effect of an event is one outbox.Change that also moves the
// Lead's cursor to that event and, for comments, records the comment's
// Trigger under a unique key: a Lead killed at any moment either did the
// whole effect and will not see the event again, or did none of it. A
// Lead never reacts to a comment written by a Lead (itself or another),
// so two Leads on one issue cannot ping-pong.
//
// Workers get neither the outbox nor memory: the Lead starts them with
// outbox.WorkerEnv set (the outbox opens read-only), and on Linux through
// the guard (Guard): new user, mount and PID namespaces where the outbox,
// memory, the team's configuration and the controller's state are bound
// read-only and the controller's socket is hidden, with the Worker in a
// further user namespace where those mounts are locked. A Lead that
// cannot guard its Workers refuses to run them (GuardUnavailableError)
// unless workflow.toml allows them unguarded.
package lead
