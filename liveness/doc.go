// Package liveness is the one rule by which daokit judges whether work
// recorded in a ledger is alive: the Python DAOKit's heartbeat evaluator
// (thresholds, silence, ACTIVE/WARNING/STALE) and which evidence of a
// ledger it weighs (LedgerSignals). The controller's healing loop (heal),
// `daokit check` and `status`, and the window's heartbeat pane all judge
// with it, so that they never disagree. It reads and writes nothing but
// the artifact folder's modification times.
//
// Time is always passed in, so that every threshold edge is testable
// without sleeping.
package liveness
