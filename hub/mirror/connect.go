package mirror

import "github.com/daokit/daokit/hub/hubconn"

// Hub says which hub to reach and how: the options every client of a
// hub dials with.
type Hub = hubconn.Options
