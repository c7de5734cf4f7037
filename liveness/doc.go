// Package liveness is the one rule by which daokit judges whether work
// recorded in a ledger is alive: the Python DAOKit's heartbeat evaluator
// (thresholds, silence, ACTIVE/WARNING/STALE) and which evidence of a
// ledger it weighs (LedgerSignals). The controller's healing loop (heal),
// `daokit check` and `status`, and the window's heartbeat pane all judge
// with it, so that they never disagree.
//
// It is also the one rule of whether a controller is alive
// (JudgeController: the lock holder's process and its standing lease):
// the window, `daokit send` and a successor controller deciding whether
// to fence a hung one all ask it. It reads nothing but the artifact
// folder's modification times, the lock file and the lease register.
//
// Time is always passed in, so that every threshold edge is testable
// without sleeping.
package liveness
