package controller

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

var _ relay.Operator = (*Controller)(nil)

// opOperation records a command the CLI forwarded (`daokit takeover`,
// `handoff --create/--apply`) and what it answered.
const opOperation = string(vocab.OpOperation)

// dedupOperation prefixes the dedup key of an opOperation event.
const dedupOperation = "operation:"

// keptOutcomes bounds the outcomes kept in memory for resends: a client
// resends within seconds of a dropped connection, and operations are
// rare.
const keptOutcomes = 256

// resendHorizon is how many of the newest event lines a controller
// searches for a resent operation it does not have in memory (its
// predecessor carried it out and died before answering): the client
// resends within seconds, well inside it.
const resendHorizon = 50_000

// HandleOperation carries out a command the CLI forwarded because this
// controller holds the root: the takeover, or the handoff's create or
// apply, through the controller's own state and writer (it is the only
// writer; the CLI takes no lock), answering with what the command
// prints. It is recorded as opOperation before it is answered. A resent
// id gets the original outcome and nothing is done again.
func (c *Controller) HandleOperation(_ context.Context, req relay.Request, op relay.Operation) (relay.Outcome, error) {
	if out, ok := c.operated(req.ID); ok {
		out.Duplicate = true
		return out, nil
	}
	var out relay.Outcome
	var taskID, runID string
	switch op.Kind {
	case relay.OperateTakeover:
		out, taskID, runID = c.operateTakeover(op)
	case relay.OperateHandoffCreate:
		out, taskID, runID = c.operateHandoffCreate(op)
	case relay.OperateHandoffApply:
		out, taskID, runID = c.operateHandoffApply(op)
	}
	result := "ok"
	severity := ledger.SeverityInfo
	if out.Failure != nil {
		result, severity = out.Failure.Code, ledger.SeverityWarn
	}
	e := c.events.system(orGlobal(taskID), orGlobal(runID), "", severity, opOperation,
		"message_id", req.ID, "kind", string(op.Kind), "result", result, "peer_pid", int(req.Peer.PID),
		"output", out.Output)
	if out.Failure != nil {
		e.Payload = e.Payload.With("failure", out.Failure)
	}
	e.DedupKey = dedupOperation + req.ID
	c.record(e)
	out.EventID = e.EventID
	c.mu.Lock()
	if c.outcomes == nil {
		c.outcomes = make(map[string]relay.Outcome)
	}
	if len(c.outcomeIDs) >= keptOutcomes {
		delete(c.outcomes, c.outcomeIDs[0])
		c.outcomeIDs = c.outcomeIDs[1:]
	}
	c.outcomes[req.ID] = out
	c.outcomeIDs = append(c.outcomeIDs, req.ID)
	c.mu.Unlock()
	return out, nil
}

// operated returns the outcome of an operation id already carried out:
// from memory, or else from its opOperation record, which a predecessor
// that died before answering left in the log.
func (c *Controller) operated(id string) (relay.Outcome, bool) {
	c.mu.Lock()
	out, ok := c.outcomes[id]
	c.mu.Unlock()
	if ok {
		return out, true
	}
	key := dedupOperation + id
	tail, err := ledger.TailMatching(ledger.Layout{Root: c.opts.Root}.Events(), resendHorizon, []byte(key))
	if err != nil {
		c.log.Warn("look for a resent operation", "message_id", id, "err", err)
		return relay.Outcome{}, false
	}
	for _, e := range tail.Events {
		if e.DedupKey != key || e.Payload.String("operation") != opOperation {
			continue
		}
		out = relay.Outcome{Output: e.Payload.String("output"), EventID: e.EventID}
		if raw, ok := e.Payload.Get("failure"); ok {
			var f relay.Failure
			if err := json.Unmarshal(raw, &f); err != nil || f.Code == "" {
				continue
			}
			out.Failure = &f
		}
		return out, true
	}
	return relay.Outcome{}, false
}

// ledgerRunLocked returns the pipeline pipeline_state.json shows, as the
// CLI would have read it: the current run's, newer in memory than on
// disk, or the file's when this controller has no run (r is then nil).
// Called with c.mu held.
func (c *Controller) ledgerRunLocked() (*run, ledger.PipelineState, *relay.Failure) {
	if c.current != nil {
		return c.current, clonePipeline(c.current.pipeline), nil
	}
	doc := ledger.LoadSnapshot(c.opts.Root).Pipeline
	if doc.Err != nil {
		return nil, ledger.PipelineState{}, &relay.Failure{Detail: doc.Err.Error()}
	}
	return nil, doc.Value, nil
}

// keepPipelineLocked makes p what the ledger shows: r's pipeline, or,
// when the controller has no run, the file's, written by the document
// writer. Called with c.mu held.
func (c *Controller) keepPipelineLocked(r *run, p ledger.PipelineState) {
	if r != nil {
		r.pipeline = p
		if c.current == r {
			c.pending = clonePipeline(p)
			c.dirty |= docPipeline
		}
		return
	}
	if c.current == nil {
		c.pending = clonePipeline(p)
		c.dirty |= docPipeline
	}
}

// operateTakeover is `daokit takeover`, by heal.PlanTakeover as the local
// command does, applied as the controller applies its own takeovers
// (finishTakeover).
func (c *Controller) operateTakeover(op relay.Operation) (relay.Outcome, string, string) {
	const code = "E_TAKEOVER_FAILED"
	c.mu.Lock()
	r, p, fail := c.ledgerRunLocked()
	if r != nil && (r.pipeline.TaskID != op.TaskID || r.pipeline.RunID != op.RunID) {
		r = c.findRunExactLocked(op.TaskID, op.RunID)
		if r != nil {
			p = clonePipeline(r.pipeline)
		}
	}
	if fail != nil {
		c.mu.Unlock()
		fail.Code = code
		return relay.Outcome{Failure: fail}, op.TaskID, op.RunID
	}
	if r != nil && !runEnded(r) {
		// A run it is running: carried out there, not refused.
		c.mu.Unlock()
		return c.operateTakeoverLive(r, op), op.TaskID, op.RunID
	}
	now := c.now()
	t, err := heal.PlanTakeover(&p, &c.leases, heal.TakeoverSpec{
		TaskID: op.TaskID, RunID: op.RunID, Reason: vocab.ReasonManualTakeover,
		Successor: heal.Holder{ThreadID: op.SuccessorThreadID, PID: op.SuccessorPID},
		TTL:       time.Duration(op.LeaseTTL) * time.Second,
	}, now)
	if err != nil {
		c.mu.Unlock()
		return takeoverFailure(code, err), op.TaskID, op.RunID
	}
	c.writeLeasesLocked()
	c.mu.Unlock()
	c.finishTakeover(&p, &t)
	c.mu.Lock()
	c.keepPipelineLocked(r, p)
	c.mu.Unlock()
	c.flush(docPipeline)
	return c.printed(code, t.Object()), op.TaskID, op.RunID
}

// findRunExactLocked returns this controller's run with both ids, nil if
// it has none. Called with c.mu held.
func (c *Controller) findRunExactLocked(taskID, runID string) *run {
	for i := len(c.order) - 1; i >= 0; i-- {
		if r := c.order[i]; r.pipeline.TaskID == taskID && r.pipeline.RunID == runID {
			return r
		}
	}
	return nil
}

// operateHandoffCreate is `daokit handoff --create`: the package built
// from the pipeline the ledger shows, written under state/.
func (c *Controller) operateHandoffCreate(op relay.Operation) (relay.Outcome, string, string) {
	const code = "E_HANDOFF_FAILED"
	c.mu.Lock()
	_, p, fail := c.ledgerRunLocked()
	c.mu.Unlock()
	if fail != nil {
		fail.Code = code
		return relay.Outcome{Failure: fail}, "", ""
	}
	opts := heal.HandoffOptions{IncludeAcceptedSteps: op.IncludeAccepted}
	if len(op.EvidencePaths) > 0 {
		opts.EvidencePaths = op.EvidencePaths
	}
	pkg, err := heal.CreateHandoff(&p, c.now(), opts)
	if errors.Is(err, heal.ErrNoTask) {
		return failure(code, "cli.handoff.error.no_task"), "", ""
	}
	if err != nil {
		return relay.Outcome{Failure: &relay.Failure{Code: code, Detail: err.Error()}}, p.TaskID, p.RunID
	}
	name := op.PackageFile
	if name == "" || strings.ContainsAny(name, `/\`) {
		name = ledger.HandoffFile
	}
	if err := c.store.WriteDocument(name, pkg); err != nil {
		return failure(code, "cli.commit.failed", "Reason", err.Error()), p.TaskID, p.RunID
	}
	return c.printed(code, pkg), p.TaskID, p.RunID
}

// operateHandoffApply is `daokit handoff --apply`: the package the CLI
// read, applied to the pipeline the ledger shows.
func (c *Controller) operateHandoffApply(op relay.Operation) (relay.Outcome, string, string) {
	const code = "E_HANDOFF_FAILED"
	pkg, err := ledger.ParseHandoffPackage(op.Package)
	if err != nil {
		return relay.Outcome{Failure: &relay.Failure{Code: code, Detail: err.Error()}}, "", ""
	}
	c.mu.Lock()
	r, p, fail := c.ledgerRunLocked()
	if fail != nil {
		c.mu.Unlock()
		fail.Code = code
		return relay.Outcome{Failure: fail}, pkg.TaskID, pkg.RunID
	}
	if r != nil && !runEnded(r) {
		// A run it is running: applied to that run's pipeline, or
		// refused (see operateHandoffApplyLive).
		c.mu.Unlock()
		return c.operateHandoffApplyLive(r, pkg, op), pkg.TaskID, pkg.RunID
	}
	plan, err := heal.ApplyHandoff(&p, pkg, op.IncludeAccepted, c.now())
	if err != nil {
		c.mu.Unlock()
		return applyFailure(code, err), p.TaskID, p.RunID
	}
	c.keepPipelineLocked(r, p)
	c.mu.Unlock()
	c.flushDocs()
	plan.PackagePath = op.PackagePath
	return c.printed(code, plan.Object()), p.TaskID, p.RunID
}

// printed is the outcome of a command that prints v as a JSON document.
func (c *Controller) printed(code string, v any) relay.Outcome {
	data, err := ledger.MarshalDocument(v)
	if err != nil {
		return relay.Outcome{Failure: &relay.Failure{Code: code, Detail: err.Error()}}
	}
	return relay.Outcome{Output: string(data)}
}

// failure is a command's failure worded by the catalog id msg; kv
// alternates its arguments' names and values.
func failure(code, msg string, kv ...string) relay.Outcome {
	f := &relay.Failure{Code: code, Message: msg}
	for i := 0; i+1 < len(kv); i += 2 {
		if f.Args == nil {
			f.Args = make(map[string]string)
		}
		f.Args[kv[i]] = kv[i+1]
	}
	return relay.Outcome{Failure: f}
}
