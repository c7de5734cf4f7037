// Package projection turns what the coordinator reports (the controller's
// run states over the relay, its RUN_STATE and RUN_FINISHED events, the
// pipeline's steps) into what a person is shown for one entry: a task,
// a run or a step (seed 004 § 3.1, AgentRunProjection). The window's
// task list and `daokit status` both draw from it, so the two never
// disagree on what a state means, when an entry needs its person, or
// how a waiting or abandoned run looks.
//
// Three rules live here and nowhere else:
//
//   - Waiting is first-class: an entry shows "waiting" only because its
//     run said so, never because nothing else was heard; a run nobody
//     has reported on yet is "received".
//   - Slot isolation: news of one run is folded only into its own entry
//     (task, run); news of another task, or of an older run of the same
//     task, never changes what the entry shows (Fold).
//   - Abandonment: a run a person dropped while it waited ended on
//     purpose; it is shown as abandoned and never asks for its person,
//     unlike a failure.
//
// The package is pure: no IO, no clock, no language. It says which word
// to show (a stored value and its kind); the caller words it.
package projection
