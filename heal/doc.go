// Package heal is the controller's self-healing: heartbeat evaluation,
// leases, takeover, handoff and worker restart policy, driven by a
// detect → decide → adopt → recover loop. It never draws anything; the
// window only reports what heal wrote to the ledger.
//
// Its decisions are pure functions the controller calls with the
// records it holds and the time: a running worker's silence
// (JudgeSilence), a takeover of a run (PlanTakeover, which `daokit
// takeover` calls too, so that both record one takeover), whether to
// fence the controller holding a root (DecideFence on liveness's rule),
// and a step's fencing generation (Fence). A lease guards its own expiry
// by its holder's clock (Held), as etcd's lessor does.
//
// Time is always passed in (a now argument or an injected clock) so that
// every threshold edge is testable without sleeping.
package heal
