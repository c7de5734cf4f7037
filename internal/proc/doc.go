// Package proc is daokit's one process runtime: every child daokit starts
// (a worker, the command judge, a hook, a Lead's Worker, a worktree's
// set-up script) starts, stops and is waited for through it, so that
// none of them, nor anything they start, outlives what it was started
// for.
//
// Each child gets a process group of its own and a marker variable
// (DAOKIT_PROC=<scope>/<label>/<token>) that its descendants inherit.
// Where the kernel lets us (cgroup v2 writable), it also starts inside a
// cgroup of its own, and killing it writes cgroup.kill: descendants that
// left the group and the session (Claude Code runs each Bash tool with
// setsid) die with it. Elsewhere killing a tree also kills every process
// whose environment carries its marker (a scan of /proc), and the
// controller is a child subreaper, so that the orphans it kills become
// its children and are reaped. A successor controller kills whatever an
// earlier one left (Scope.Sweep): the scope's cgroups, and every process
// whose environment carries the scope's marker.
package proc
