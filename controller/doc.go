// Package controller is the daokit controller: the only process that
// executes anything for a ledger root. It routes each instruction to a
// run, has the run's steps done by worker processes, and keeps the
// ledger.
//
// Every worker run moves through one state machine (runstate.go):
//
//	idle → waiting → requesting → generating → persisting → completed
//
// with failed, cancelled and timedOut as the other ways out. Illegal
// transitions are refused, a run never leaves its terminal state, and each
// run has exactly one owner (task_id, run_id, step_id). A restart of a
// failed worker is a new run of the same owner, so the machine has no
// cycles.
//
// Runs wait for their lane explicitly (sched.go): a laneScheduler gives
// each lane its configured number of slots, first come first served, and
// tells a waiting run its place in line. The lanes are the state of one
// goroutine, the state loop (loop.go), which the runs ask; a new
// instruction whose lane is full waits there as data, and its run's
// goroutine starts when it gets its slot (queued.go).
//
// How a worker run ended is mapped to one of a small set of stable reason
// codes (classify.go), such as WORKER_TIMEOUT or WORKER_HUNG. The codes,
// like the run states, operations and control results, are declared in
// package vocab with their labels; events and relay messages carry the
// code, and each reader words it in its own language.
package controller
