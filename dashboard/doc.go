// Package dashboard serves the live ledger of a root as a web page on
// localhost: the pipeline, the leases, the heartbeat, the tasks and runs
// and the newest events, in English or Chinese, kept current with
// server-sent events from the same ledger feed the window uses.
//
// The page is an observer relay like the window: it shows what the
// ledger says and forwards what the person types to the controller (a
// Forwarder, the window's relay link); it never executes, routes or
// writes the ledger itself. Every request must carry the random access
// token of the URL the command prints; a read-only page has no input and
// refuses every POST.
package dashboard
