package main

import (
	"context"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// openOutboxReadOnly opens wf's outbox for the window: read-only, with
// no token (a GitHub or GitLab outbox is read from the Leads' mirror; a
// hub's with the credentials workflow.toml names).
func openOutboxReadOnly(ctx context.Context, wf *team.Workflow) (outbox.Backend, error) {
	return pick.Open(ctx, wf, "", outbox.Options{ReadOnly: true})
}
