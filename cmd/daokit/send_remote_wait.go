package main

import (
	"context"
	"os"
	"time"

	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// remotePoll is how often a wait through the hub looks at its mirror.
const remotePoll = 100 * time.Millisecond

// followRemote waits for the end of the run an instruction sent through
// the hub became, reading a mirror of the root that it keeps in a
// temporary folder for as long as it waits: the leader's own pipeline
// document says how the run ended while it is the newest run, its
// RUN_FINISHED event says so after another run took its place.
func (a *app) followRemote(o remoteFlags, ack relay.Ack) error {
	dir, err := os.MkdirTemp("", "daokit-send-mirror-*")
	if err != nil {
		return failf("E_SEND_FAILED", err.Error())
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	mirrored := make(chan error, 1)
	go func() {
		mirrored <- mirror.Run(ctx, mirror.Options{Root: o.rootID, Dir: dir,
			Hub: o.options("send")})
	}()
	defer func() {
		cancel()
		<-mirrored
	}()
	events := ledger.NewFollower(ledger.Layout{Root: dir}.Events(), 0)
	defer events.Close()
	tick := time.NewTicker(remotePoll)
	defer tick.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return a.waitFailed("E_SEND_FAILED", a.ctx.Err())
		case err := <-mirrored:
			mirrored <- err // for the deferred wait
			if err == nil { // only a stop ends a mirror without an error
				return a.waitFailed("E_SEND_FAILED", context.Canceled)
			}
			return failf("E_SEND_FAILED", a.t("remote.cli.error.mirror", "Root", o.rootID, "Err", err.Error()))
		case <-tick.C:
			if r, ok := remoteRunEnd(dir, events, ack); ok {
				return a.runEnded(r)
			}
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
