package relayctx

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// maxLinesPerStep bounds the worker output one step contributes: the
// context keeps a digest for a successor, not the worker's log.
const maxLinesPerStep = 40

// maxEvidence bounds the evidence paths the window remembers recording.
const maxEvidence = 1024

// Instruction records what the person sent.
// Its "Constraint:" / "约束：" lines are kept as constraints.
func (m *Model) Instruction(ctx context.Context, text string) tea.Cmd {
	m.addConstraints(ConstraintLines(text))
	m.setFacts(compact.Facts{LatestInstruction: text})
	m.pending.instructionSent(text)
	return m.maybeCompact(ctx)
}

// Answer records the controller's acknowledgement of a request, or the
// relay's failure to deliver it.
func (m *Model) Answer(ctx context.Context, ack live.Ack, err error) tea.Cmd {
	if err != nil {
		code := "error"
		var re *live.Error
		if errors.As(err, &re) {
			code = re.Code
		}
		m.apply(appendOp(compact.APIErrorDumps, errorEntry{Code: code, Message: err.Error()}))
		return m.maybeCompact(ctx)
	}
	m.apply(appendOp(compact.StatusReports, statusEntry{EventType: "ACK", Status: "acknowledged",
		TaskID: ack.TaskID, RunID: ack.RunID, StepID: ack.ActiveStep, Lane: ack.ActiveLane}))
	m.route(ack.Route)
	return m.maybeCompact(ctx)
}

// route records where the controller routed the latest instruction.
func (m *Model) route(r live.Route) {
	if r.IsZero() {
		return
	}
	m.setFacts(compact.Facts{Route: r})
}

// Relay records a notice of the controller.
func (m *Model) Relay(ctx context.Context, u live.RelayUpdate) tea.Cmd {
	switch {
	case u.Route != nil:
		m.route(*u.Route)
	case u.Status != nil:
		m.route(u.Status.Route)
	case u.Run != nil:
		r := u.Run
		m.apply(appendOp(compact.StatusReports, statusEntry{EventType: "RUN_STATE", Status: r.State,
			TaskID: r.TaskID, RunID: r.RunID, StepID: r.StepID, Lane: r.Lane, Reason: r.Reason}))
	case u.Output != nil:
		o := u.Output
		k := o.TaskID + "\x00" + o.RunID + "\x00" + o.StepID
		if m.perStep[k] >= maxLinesPerStep {
			return nil
		}
		m.perStep[k]++
		m.apply(appendOp(compact.ExecutionLogs, logEntry{EventType: "WORKER_OUTPUT", TaskID: o.TaskID,
			RunID: o.RunID, StepID: o.StepID, Lane: o.Lane, Stream: o.Stream, Line: o.Line}))
	default:
		return nil
	}
	return m.maybeCompact(ctx)
}

// Ledger records what the ledger says: the keep set from the pipeline,
// heartbeat changes, and warning or error events.
func (m *Model) Ledger(ctx context.Context, u live.LedgerUpdate) tea.Cmd {
	if s := u.Snapshot; s != nil {
		if s.Pipeline.HasValue() {
			m.known = compact.PipelineFacts(s.Pipeline.Value)
			m.syncLedger(m.known)
			for _, st := range s.Pipeline.Value.Steps {
				for _, p := range st.ExpectedOutputs {
					if !m.evidence[p] && len(m.evidence) < maxEvidence {
						m.evidence[p] = true
						m.apply(appendOp(compact.EvidencePaths, p))
					}
				}
			}
		}
		if s.Heartbeat.HasValue() {
			m.heartbeat(s.Heartbeat.Value)
		}
	}
	var restore tea.Cmd
	for i := range u.Events {
		m.event(&u.Events[i])
		if e := &u.Events[i]; e.EventType == ledger.EventSystem && e.Payload.String("operation") == opHandoffApplied {
			restore = m.loadHandoff()
		}
	}
	return tea.Batch(restore, m.maybeCompact(ctx))
}

func (m *Model) heartbeat(h ledger.HeartbeatStatus) {
	if h.Status == m.lastHB {
		return
	}
	m.lastHB = h.Status
	m.setHealth(h.Status)
	m.apply(appendOp(compact.StatusReports, statusEntry{EventType: "HEARTBEAT", Status: h.Status, Reason: h.ReasonCode}))
}

// setHealth records a new health state for the triggers.
func (m *Model) setHealth(s string) {
	if s != m.health {
		m.pending.healthIs(m.health, s)
		m.health = s
	}
}

func (m *Model) event(e *ledger.Event) {
	m.instructionEvent(e)
	if e.EventType == ledger.EventLeaseTakeover {
		m.setHealth(ledger.EventLeaseTakeover)
	}
	if e.Severity != ledger.SeverityWarn && e.Severity != ledger.SeverityError {
		return
	}
	reason := e.Payload.String("reason_code")
	if reason == "" {
		reason = e.Payload.String("decision_reason_code")
	}
	msg := e.Payload.String("message")
	if msg == "" {
		msg = e.Payload.String("error")
	}
	m.apply(appendOp(compact.FailureNoise, failureEntry{EventType: e.EventType, Severity: e.Severity,
		TaskID: e.TaskID, RunID: e.RunID, StepID: e.StepID, DedupKey: e.DedupKey, Reason: reason, Message: msg}))
}
