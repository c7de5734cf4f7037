package main

import (
	"context"
	"errors"
	"time"

	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/relay"
)

// remoteAnswerWait bounds how long send waits for the leader's answer
// once the hub holds the request: past it the person is told that the
// hub keeps the request for the leader.
const remoteAnswerWait = 30 * time.Second

// sendRemote sends one request (an instruction, a follow-up or a control
// request, as build makes it) to a root's leader through the hub.
func (a *app) sendRemote(o remoteFlags, build func(context.Context, *remote.Client) (relay.Ack, error)) (relay.Ack, error) {
	names, err := a.remoteRoot(o)
	if err != nil {
		return relay.Ack{}, err
	}
	conn, err := a.dialHub(o, "send")
	if err != nil {
		return relay.Ack{}, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(a.ctx, remoteAnswerWait)
	defer cancel()
	ack, err := build(ctx, remote.NewClient(conn.JS, names))
	switch {
	case err == nil:
		return ack, nil
	case errors.Is(err, remote.ErrNoLeader):
		return relay.Ack{}, failf("E_SEND_FAILED", a.t("remote.cli.error.no_leader", "Root", o.rootID, "URL", o.hub))
	case errors.Is(err, remote.ErrUnanswered) && a.ctx.Err() == nil:
		return relay.Ack{}, failf("E_SEND_UNANSWERED", a.t("remote.cli.error.unanswered", "Root", o.rootID, "Wait", remoteAnswerWait))
	}
	return relay.Ack{}, a.relayFail("E_SEND_FAILED", err)
}

// forwardRemote sends an instruction (or a follow-up) to a root's leader
// through the hub.
func (a *app) forwardRemote(o sendFlags, text string) error {
	if o.initLedger || o.noStart {
		return usageError(a.t("remote.cli.error.local_flag"))
	}
	ack, err := a.sendRemote(o.remote, func(ctx context.Context, c *remote.Client) (relay.Ack, error) {
		if o.followUp {
			return c.FollowUp(ctx, o.taskID, o.runID, text)
		}
		return c.Forward(ctx, text)
	})
	if err != nil {
		return err
	}
	if err := a.forwardSent(ack, o.asJSON); err != nil {
		return err
	}
	if !o.wait {
		return nil
	}
	return a.followRemote(o.remote, ack)
}
