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
	c.do(func(st *loopState) {
		if st.outcomes == nil {
			st.outcomes = make(map[string]relay.Outcome)
		}
		if len(st.outcomeIDs) >= keptOutcomes {
			delete(st.outcomes, st.outcomeIDs[0])
			st.outcomeIDs = st.outcomeIDs[1:]
		}
		st.outcomes[req.ID] = out
		st.outcomeIDs = append(st.outcomeIDs, req.ID)
	})
	return out, nil
}

// operated returns the outcome of an operation id already carried out:
// from memory, or else from its opOperation record, which a predecessor
// that died before answering left in the log.
func (c *Controller) operated(id string) (relay.Outcome, bool) {
	var out relay.Outcome
	var ok bool
	c.do(func(st *loopState) {
		out, ok = st.outcomes[id]
	})
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

// onLedgerRun runs f in a request with the pipeline pipeline_state.json
// shows, as the CLI would have read it: the current run's, newer in
// memory than on disk, or the file's when this controller has no run (r
// is then nil). The file is read outside the state loop, and only when
// a request found no current run; a run that became current meanwhile
// is used instead.
func (c *Controller) onLedgerRun(f func(st *loopState, r *run, p ledger.PipelineState, fail *relay.Failure)) {
	var doc *ledger.Result[ledger.PipelineState]
	for {
		ran := false
		c.do(func(st *loopState) {
			switch {
			case st.current != nil:
				f(st, st.current, clonePipeline(st.current.pipeline), nil)
			case doc == nil:
				return // the file is read first
			case doc.Err != nil:
				f(st, nil, ledger.PipelineState{}, &relay.Failure{Detail: doc.Err.Error()})
			default:
				f(st, nil, doc.Value, nil)
			}
			ran = true
		})
		if ran {
			return
		}
		read := ledger.LoadSnapshot(c.opts.Root).Pipeline
		doc = &read
	}
}

// keepPipeline makes p what the ledger shows: r's pipeline, or,
// when the controller has no run, the file's, written by the document
// writer. Called on the state loop.
func (c *Controller) keepPipeline(st *loopState, r *run, p ledger.PipelineState) {
	if r != nil {
		r.pipeline = p
		if st.current == r {
			st.pending = clonePipeline(p)
			st.dirty |= docPipeline
		}
		return
	}
	if st.current == nil {
		st.pending = clonePipeline(p)
		st.dirty |= docPipeline
	}
}

// operateTakeover is `daokit takeover`, by heal.PlanTakeover as the local
// command does, applied as the controller applies its own takeovers
// (finishTakeover).
func (c *Controller) operateTakeover(op relay.Operation) (relay.Outcome, string, string) {
	const code = "E_TAKEOVER_FAILED"
	var r *run
	var p ledger.PipelineState
	var fail *relay.Failure
	var t heal.Takeover
	var err error
	live := false
	c.onLedgerRun(func(st *loopState, shown *run, pipeline ledger.PipelineState, failed *relay.Failure) {
		r, p, fail = shown, pipeline, failed
		if r != nil && (r.pipeline.TaskID != op.TaskID || r.pipeline.RunID != op.RunID) {
			r = c.findRunExact(st, op.TaskID, op.RunID)
			if r != nil {
				p = clonePipeline(r.pipeline)
			}
		}
		if fail != nil {
			return
		}
		if live = r != nil && !runEnded(r); live {
			return
		}
		t, err = heal.PlanTakeover(&p, &st.leases, heal.TakeoverSpec{
			TaskID: op.TaskID, RunID: op.RunID, Reason: vocab.ReasonManualTakeover,
			Successor: heal.Holder{ThreadID: op.SuccessorThreadID, PID: op.SuccessorPID},
			TTL:       time.Duration(op.LeaseTTL) * time.Second,
		}, c.now())
		if err == nil {
			c.writeLeases(st)
		}
	})
	if fail != nil {
		fail.Code = code
		return relay.Outcome{Failure: fail}, op.TaskID, op.RunID
	}
	if live {
		// A run it is running: carried out there, not refused.
		return c.operateTakeoverLive(r, op), op.TaskID, op.RunID
	}
	if err != nil {
		return takeoverFailure(code, err), op.TaskID, op.RunID
	}
	c.finishTakeover(func(*loopState) *ledger.PipelineState { return &p }, &t)
	c.do(func(st *loopState) {
		c.keepPipeline(st, r, p)
	})
	c.flush(docPipeline)
	return c.printed(code, t.Object()), op.TaskID, op.RunID
}

// findRunExact returns this controller's run with both ids, nil if
// it has none. Called on the state loop.
func (c *Controller) findRunExact(st *loopState, taskID, runID string) *run {
	for i := len(st.order) - 1; i >= 0; i-- {
		if r := st.order[i]; r.pipeline.TaskID == taskID && r.pipeline.RunID == runID {
			return r
		}
	}
	return nil
}

// operateHandoffCreate is `daokit handoff --create`: the package built
// from the pipeline the ledger shows, written under state/.
func (c *Controller) operateHandoffCreate(op relay.Operation) (relay.Outcome, string, string) {
	const code = "E_HANDOFF_FAILED"
	var p ledger.PipelineState
	var fail *relay.Failure
	c.onLedgerRun(func(_ *loopState, _ *run, pipeline ledger.PipelineState, failed *relay.Failure) {
		p, fail = pipeline, failed
	})
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
	var r *run
	var p ledger.PipelineState
	var fail *relay.Failure
	var plan heal.ResumePlan
	live := false
	c.onLedgerRun(func(st *loopState, shown *run, pipeline ledger.PipelineState, failed *relay.Failure) {
		if r, p, fail = shown, pipeline, failed; fail != nil {
			return
		}
		if live = r != nil && !runEnded(r); live {
			return
		}
		if plan, err = heal.ApplyHandoff(&p, pkg, op.IncludeAccepted, c.now()); err == nil {
			c.keepPipeline(st, r, p)
		}
	})
	if fail != nil {
		fail.Code = code
		return relay.Outcome{Failure: fail}, pkg.TaskID, pkg.RunID
	}
	if live {
		// A run it is running: applied to that run's pipeline, or
		// refused (see operateHandoffApplyLive).
		return c.operateHandoffApplyLive(r, pkg, op), pkg.TaskID, pkg.RunID
	}
	if err != nil {
		return applyFailure(code, err), p.TaskID, p.RunID
	}
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
