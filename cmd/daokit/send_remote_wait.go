package main

import (
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// remotePoll is how often a wait through the hub looks at its mirror.
const remotePoll = 100 * time.Millisecond

// followRemote waits for the end of the run an instruction sent through
// the hub became, reading the mirror of the root kept in this host's
// cache (remoteFolder) for as long as it waits: the leader's own
// pipeline document says how the run ended while it is the newest run,
// its RUN_FINISHED event says so after another run took its place.
func (a *app) followRemote(o remoteFlags, ack relay.Ack) error {
	dir, stop, err := a.remoteFolder(o, "send")
	if err != nil {
		return err
	}
	defer stop()
	events := ledger.NewFollower(ledger.Layout{Root: dir}.Events(), 0)
	defer events.Close()
	tick := time.NewTicker(remotePoll)
	defer tick.Stop()
	for {
		if r, ok := remoteRunEnd(dir, events, ack); ok {
			return a.runEnded(r)
		}
		select {
		case <-a.ctx.Done():
			return a.waitFailed("E_SEND_FAILED", a.ctx.Err())
		case <-tick.C:
		}
	}
}

// remoteRunEnd reports how the run of ack ended, if the mirror in dir
// says it has.
func remoteRunEnd(dir string, events *ledger.Follower, ack relay.Ack) (relay.Route, bool) {
	if p := ledger.LoadSnapshot(dir).Pipeline; p.OK() {
		r := p.Value.Route()
		if r.TaskID == ack.TaskID && r.RunID == ack.RunID && runOver(r) {
			return r, true
		}
	}
	for {
		b, err := events.Next()
		if err != nil {
			return relay.Route{}, false
		}
		for _, e := range b.Events {
			if e.TaskID != ack.TaskID || e.RunID != ack.RunID || e.Payload.String("operation") != string(vocab.OpRunFinished) {
				continue
			}
			next := vocab.NextRetry
			if e.Payload.String("status") == ledger.StatusDone {
				next = vocab.NextDone
			}
			return relay.Route{TaskID: ack.TaskID, RunID: ack.RunID, NextAction: string(next)}, true
		}
		if !b.More {
			return relay.Route{}, false
		}
	}
}
