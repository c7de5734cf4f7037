package relay

import "strings"

// The requests a person sends, built once for every way they travel:
// the controller's socket (Client) and the hub (package hub/remote).

// ForwardEnvelope is the request that forwards an instruction the person
// typed; blank text is refused.
func ForwardEnvelope(text string) (Envelope, error) {
	if strings.TrimSpace(text) == "" {
		return Envelope{}, &Error{Code: CodeBadRequest, Detail: "text"}
	}
	return withBody(Envelope{Type: TypeInstruction, Action: ActionForward}, Instruction{Text: text})
}

// FollowUpEnvelope is the request that hands text to task taskID (its run
// runID, or its latest run when runID is empty) as a follow-up.
func FollowUpEnvelope(taskID, runID, text string) (Envelope, error) {
	if strings.TrimSpace(text) == "" {
		return Envelope{}, &Error{Code: CodeBadRequest, Detail: "text"}
	}
	if strings.TrimSpace(taskID) == "" {
		return Envelope{}, &Error{Code: CodeBadRequest, Detail: "task_id"}
	}
	return withBody(Envelope{Type: TypeInstruction, Action: ActionForward},
		Instruction{Text: text, TaskID: taskID, RunID: runID, FollowUp: true})
}

// ControlEnvelope is the request that forwards a control request (cancel,
// retry, status…) for the controller to decide.
func ControlEnvelope(ctl Control) (Envelope, error) {
	if !ctl.Kind.Valid() {
		return Envelope{}, &Error{Code: CodeBadRequest, Detail: "kind"}
	}
	return withBody(Envelope{Type: TypeControl, Action: ActionForward}, ctl)
}

func withBody(env Envelope, body any) (Envelope, error) {
	if err := env.SetBody(body); err != nil {
		return Envelope{}, err
	}
	return env, nil
}

// PrepareRequest makes env ready to send: it runs Guard on its action (an
// action other than forward, observe or visualize is refused with a
// *ForbiddenActionError), fills in the version and, if empty, a fresh
// ID, and checks that the type is a request type the action fits.
func PrepareRequest(env Envelope) (Envelope, error) {
	if err := Guard(env.Action); err != nil {
		return Envelope{}, err
	}
	if env.ID == "" {
		env.ID = NewID()
	}
	env.V, env.Re = Version, ""
	if err := checkRequest(env); err != nil {
		return Envelope{}, err
	}
	return env, nil
}

// AnswerError returns the *Error an error answer carries, or nil for any
// other answer.
func AnswerError(reply Envelope) error {
	if reply.Type != TypeError {
		return nil
	}
	e := &Error{Code: CodeInternal}
	_ = reply.DecodeBody(e)
	return e
}

// DecodeAck reads the Ack of an ack answer; any other answer is
// malformed here.
func DecodeAck(reply Envelope) (Ack, error) {
	if reply.Type != TypeAck {
		return Ack{}, &Error{Code: CodeMalformed, Detail: string(reply.Type)}
	}
	var a Ack
	if err := reply.DecodeBody(&a); err != nil {
		return Ack{}, err
	}
	return a, nil
}
