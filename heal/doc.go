// Package heal is the controller's self-healing: heartbeat evaluation,
// leases, takeover, handoff and worker restart policy, driven by a
// detect → decide → adopt → recover loop. It never draws anything; the
// window only reports what heal wrote to the ledger.
//
// Time is always passed in (a now argument or an injected clock) so that
// every threshold edge is testable without sleeping.
package heal
