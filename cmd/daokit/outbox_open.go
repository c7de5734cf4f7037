package main

import (
	"errors"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// outboxProblem says in the reader's language why the outbox database
// was refused (missing, emptied, corrupt) and what to do; other errors
// as they are.
func (a *app) outboxProblem(err error) string {
	var oe *outbox.OpenError
	if !errors.As(err, &oe) {
		return err.Error()
	}
	return a.t("team.lead_exit."+oe.Code(), "Detail", roster.ExitOf("", 0, err).Detail)
}

// outboxFailure is the CLI error of an outbox that could not be opened:
// E_OUTBOX_MISSING, E_OUTBOX_EMPTY or E_OUTBOX_CORRUPT for a refused
// database, E_OUTBOX otherwise.
func (a *app) outboxFailure(err error) error {
	var oe *outbox.OpenError
	if errors.As(err, &oe) {
		return failf("E_"+oe.Code(), a.outboxProblem(err))
	}
	return failf("E_OUTBOX", err.Error())
}
