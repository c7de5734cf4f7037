package live

import "github.com/daokit/daokit/ledger"

// RouteOf reads the route summary a pipeline records, for a window that
// has no controller to ask (watch mode, or before the first notice).
func RouteOf(p *ledger.PipelineState) Route { return p.Route() }
