package relay

import (
	"context"
	"encoding/json"
	"strings"
)

// OperationKind names a ledger command the CLI forwards to the controller
// holding the root. The set is closed, as ControlKind's is: what a
// controller carries out for a person's command is decided here, not by
// the client.
type OperationKind string

// The forwarded commands: the Python DAOKit's operator commands, which
// write the ledger and so, while a controller holds the root, are its to
// carry out (it is the only writer).
const (
	// OperateTakeover is `daokit takeover`.
	OperateTakeover OperationKind = "takeover"
	// OperateHandoffCreate is `daokit handoff --create`.
	OperateHandoffCreate OperationKind = "handoff_create"
	// OperateHandoffApply is `daokit handoff --apply`.
	OperateHandoffApply OperationKind = "handoff_apply"
)

// Valid reports whether k is one of the forwarded commands.
func (k OperationKind) Valid() bool {
	switch k {
	case OperateTakeover, OperateHandoffCreate, OperateHandoffApply:
		return true
	}
	return false
}

// Operation is the body of an operate request: the command's options, as
// the CLI resolved them (defaults filled in from the ledger it read).
type Operation struct {
	Kind OperationKind `json:"kind"`
	// TaskID and RunID name the run a takeover takes over.
	TaskID string `json:"task_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	// SuccessorThreadID and SuccessorPID hold the adopted leases (the
	// CLI's own by default, as when it runs locally); LeaseTTL is their
	// TTL in seconds, 0 keeping each lease's remaining time.
	SuccessorThreadID string `json:"successor_thread_id,omitempty"`
	SuccessorPID      int    `json:"successor_pid,omitempty"`
	LeaseTTL          int    `json:"lease_ttl,omitempty"`
	// PackageFile is the file under state/ a handoff --create writes.
	PackageFile string `json:"package_file,omitempty"`
	// Package is the package a handoff --apply applies, as the CLI read
	// and checked it; PackagePath is where it read it, as printed.
	Package     json.RawMessage `json:"package,omitempty"`
	PackagePath string          `json:"package_path,omitempty"`
	// IncludeAccepted is --include-accepted-steps; EvidencePaths are the
	// --evidence-path values (empty: derived from the ledger).
	IncludeAccepted bool     `json:"include_accepted,omitempty"`
	EvidencePaths   []string `json:"evidence_paths,omitempty"`
}

// Outcome is the body of an outcome: what the command prints, so that
// its stdout, stderr and exit code are the same whether it ran locally
// or was carried out by the controller.
type Outcome struct {
	// Output is the command's stdout, byte for byte, on success.
	Output string `json:"output,omitempty"`
	// Failure, when set, is the command's failure instead.
	Failure *Failure `json:"failure,omitempty"`
	// EventID is the ledger event that recorded the operation.
	EventID string `json:"event_id,omitempty"`
	// Duplicate is true when the request id had already been carried
	// out (a resend after a reconnect): the Outcome is the original one
	// and nothing was done again.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Failure is a command's failure as the CLI prints it: "Code: message",
// the message a catalog id (Message, with Args) worded in the reader's
// language, or Detail as it is when there is no id for it (a system's
// error text).
type Failure struct {
	Code    string            `json:"code"`
	Message string            `json:"message,omitempty"`
	Args    map[string]string `json:"args,omitempty"`
	Detail  string            `json:"detail,omitempty"`
}

// Operator is implemented by a Handler that carries out forwarded
// commands; a server whose handler does not answers operate requests
// with unknown_type.
type Operator interface {
	// HandleOperation carries out op and returns what the command
	// prints. It must be idempotent by req.ID: for an id it carried out
	// before, it returns the original Outcome with Duplicate set. Two
	// calls with the same id never overlap; the relay makes the second
	// wait.
	HandleOperation(ctx context.Context, req Request, op Operation) (Outcome, error)
}

// operate handles a checked operate request: refused on a connection
// that observes (see GuardOperation), then one handler call per id.
func (s *Server) operate(ctx context.Context, c *conn, req Request, env Envelope) Envelope {
	if err := GuardOperation(c.observing.Load()); err != nil {
		return errorAnswer(env.ID, wireError(err))
	}
	h, ok := s.h.(Operator)
	if !ok {
		return errorAnswer(env.ID, &Error{Code: CodeUnknownType, Detail: string(env.Type)})
	}
	var op Operation
	if env.DecodeBody(&op) != nil {
		return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "body"})
	}
	if !op.Kind.Valid() {
		return errorAnswer(env.ID, &Error{Code: CodeBadRequest, Detail: "kind"})
	}
	out, err := s.opFlights.do(ctx, env.ID, func() (o Outcome, err error) {
		defer recoverInto(&err)
		return h.HandleOperation(ctx, req, op)
	}, func(o Outcome) Outcome { o.Duplicate = true; return o })
	if err != nil {
		return errorAnswer(env.ID, wireError(err))
	}
	return answer(TypeOutcome, env.ID, out)
}

// Operate forwards a ledger command to the controller and returns what
// the command prints. It is refused, before anything is sent, on a
// client that observes: a window relays, it does not operate.
func (c *Client) Operate(ctx context.Context, op Operation) (Outcome, error) {
	if !op.Kind.Valid() {
		return Outcome{}, &Error{Code: CodeBadRequest, Detail: "kind"}
	}
	c.mu.Lock()
	observing := c.observing
	c.mu.Unlock()
	if err := GuardOperation(observing); err != nil {
		return Outcome{}, err
	}
	env := Envelope{Type: TypeOperate, Action: ActionForward}
	if err := env.SetBody(op); err != nil {
		return Outcome{}, err
	}
	reply, err := c.Send(ctx, env)
	if err != nil {
		return Outcome{}, err
	}
	if reply.Type != TypeOutcome {
		return Outcome{}, &Error{Code: CodeMalformed, Detail: string(reply.Type)}
	}
	var o Outcome
	if err := reply.DecodeBody(&o); err != nil {
		return Outcome{}, err
	}
	if o.Failure != nil && strings.TrimSpace(o.Failure.Code) == "" {
		return Outcome{}, &Error{Code: CodeMalformed, Detail: "failure"}
	}
	return o, nil
}
