package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go/jetstream"
)

// hubCheckWait bounds check's questions to the hub.
const hubCheckWait = 5 * time.Second

// checkHub asks the hub of daokit.toml's [hub], unless offline, whether
// it lets this root's key in, and notes who leads the root and how far
// its ledger stream is against this folder's events.jsonl. A hub that
// does not answer, or refuses the key, fails the check: the controller
// would wait for it and take no instruction.
func (a *app) checkHub(root string, cfg config.Config, offline bool) bool {
	h := cfg.Hub
	if !h.Enabled() || offline {
		return true
	}
	names, err := naming.ForRoot(h.RootID)
	if err != nil {
		return true // validated with daokit.toml already
	}
	ctx, cancel := context.WithTimeout(a.ctx, hubCheckWait)
	defer cancel()
	conn, err := hubconn.Dial(hubconn.Options{URL: h.URL, Credentials: h.CredentialsPath(root), Timeout: hubCheckWait})
	if err != nil {
		fmt.Fprintln(a.io.err, "E_CHECK_HUB_UNREACHABLE: "+a.t("cli.check.error.hub", "URL", h.URL, "Reason", err.Error()))
		return false
	}
	defer conn.Close()
	js := conn.JS
	holder, seq := a.t("cli.check.hub.no_leader"), uint64(0)
	if kv, err := js.KeyValue(ctx, names.LeaseBucket()); err == nil {
		if e, err := kv.Get(ctx, naming.LeaseKey); err == nil {
			holder = leader.Holder(e.Value())
		}
	} else if !errors.Is(err, jetstream.ErrBucketNotFound) {
		fmt.Fprintln(a.io.err, "E_CHECK_HUB_UNREACHABLE: "+a.t("cli.check.error.hub", "URL", h.URL, "Reason", err.Error()))
		return false
	}
	if s, err := mirror.LedgerStream(ctx, js, names); err == nil {
		if seq, err = mirror.LastSequence(ctx, s); err != nil {
			fmt.Fprintln(a.io.err, "E_CHECK_HUB_UNREACHABLE: "+a.t("cli.check.error.hub", "URL", h.URL, "Reason", err.Error()))
			return false
		}
	}
	f, err := mirror.OpenFolder(root)
	lines := 0
	if err == nil {
		_, lines, _ = f.LastLine()
	}
	fmt.Fprintln(a.io.err, a.t("cli.check.hub.note", "URL", h.URL, "Root", h.RootID, "Leader", holder,
		"Stream", seq, "Lines", lines))
	return true
}
