// Package hooks runs the hook commands of daokit.toml: the points of the
// controller's and the window's life at which they run, their checked
// specs, and one runner that starts a command in a process group of its
// own, hands it a JSON object on stdin, stops it at its timeout (killing
// the whole group), caps and reads its output, and says in a Result why
// a run was skipped. What a point feeds its hooks and what it does with
// their output belongs to the caller: the controller (session-start,
// pre-dispatch, post-accept) and compaction (pre-compact, with its
// built-in hook).
package hooks
