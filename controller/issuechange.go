package controller

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/vocab"
)

// Errors of /comment, /label and /close.
const (
	// codeBadIssueChange: no "#N" or nothing to do (Detail: the request).
	codeBadIssueChange = relay.Code(vocab.ResultBadIssueChange)
	// codeNoIssue: the outbox has no issue N (Detail: "#N").
	codeNoIssue = relay.Code(vocab.ResultNoIssue)
)

// opIssueChanged records a comment, label or close the person sent from
// the window.
const opIssueChanged = string(vocab.OpIssueChanged)

// changeIssue writes a comment, a label (or its removal) or a close on
// an issue of the team's outbox, for the person: the window forwards
// "/comment #N TEXT", "/label #N [-]LABEL", "/close #N [WHY]" and never
// writes the outbox itself. The request id is the change's Trigger and
// the event's dedup key, so a resend after a reconnect writes nothing
// twice. A "/retry" comment is how a person asks a Lead to run an issue
// again (the Lead's protocol), so /retry #N needs nothing of its own.
func (c *Controller) changeIssue(req relay.Request, ctl relay.Control) (relay.Ack, error) {
	id, rest, ok := issueArgs(ctl.Reason)
	op := outbox.Op{Issue: id}
	switch ctl.Kind {
	case relay.ControlComment:
		op.Kind, op.Body = outbox.OpComment, rest
		ok = ok && rest != ""
	case relay.ControlLabel:
		label, off := strings.CutPrefix(rest, "-")
		op.Kind, op.Labels = outbox.OpLabel, []string{label}
		if off {
			op.Kind = outbox.OpUnlabel
		}
		ok = ok && label != "" && !strings.ContainsAny(label, " \t")
	case relay.ControlClose:
		op.Kind = outbox.OpClose
	}
	if !ok {
		return relay.Ack{}, &relay.Error{Code: codeBadIssueChange, Detail: "/" + string(ctl.Kind) + " " + ctl.Reason}
	}
	ops := []outbox.Op{op}
	if ctl.Kind == relay.ControlClose && rest != "" {
		// The why of a close is a comment before it, in the thread.
		ops = []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: rest}, op}
	}
	dir := c.cfg.Team.OutboxDir(c.opts.Root)
	if !team.Exists(dir) {
		return relay.Ack{}, &relay.Error{Code: codeNoTeam, Detail: dir}
	}
	wf, err := team.Load(dir)
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeNoTeam, Detail: err.Error()}
	}
	ob, err := pick.Open(context.Background(), wf, pick.Token(wf, os.Getenv), outbox.Options{})
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeOutbox, Detail: err.Error()}
	}
	defer ob.Close()
	ref := "#" + strconv.FormatInt(id, 10)
	ctx := context.Background()
	if _, err := ob.Issue(ctx, id); errors.Is(err, outbox.ErrNotFound) {
		return relay.Ack{}, &relay.Error{Code: codeNoIssue, Detail: ref}
	} else if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeOutbox, Detail: err.Error()}
	}
	res, err := ob.Apply(ctx, outbox.Change{Actor: "person", Reader: "window", Trigger: "relay:" + req.ID, Ops: ops})
	if err != nil {
		return relay.Ack{}, &relay.Error{Code: codeOutbox, Detail: err.Error()}
	}
	e := c.events.system(teamTask, "outbox", "", ledger.SeverityInfo, opIssueChanged,
		"message_id", req.ID, "issue", id, "kind", string(ctl.Kind), "message", strings.TrimSpace(ref+" "+string(ctl.Kind)+" "+rest))
	e.DedupKey = dedupControl + req.ID
	if err := c.journal.append(e); err != nil {
		return relay.Ack{}, &relay.Error{Code: codeLedgerWrite, Detail: ledger.EventsFile}
	}
	return relay.Ack{EventID: e.EventID, Duplicate: res.Duplicate}, nil
}

// issueArgs splits "#N REST" (the # is optional); ok is false without a
// positive issue number.
func issueArgs(s string) (id int64, rest string, ok bool) {
	s = strings.TrimSpace(s)
	first, rest, _ := strings.Cut(s, " ")
	id, err := strconv.ParseInt(strings.TrimPrefix(first, "#"), 10, 64)
	return id, strings.TrimSpace(rest), err == nil && id > 0
}
