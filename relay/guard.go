package relay

import (
	"errors"
	"strings"
)

// The actions a relay may perform: the whole of what the window is allowed
// to do. Everything else (execute, route, takeover, release, dispatch, …)
// belongs to the controller.
const (
	ActionForward   = "forward"
	ActionObserve   = "observe"
	ActionVisualize = "visualize"
)

// AllowedActions returns the relay actions in the order the Python DAOKit
// lists them.
func AllowedActions() []string {
	return []string{ActionForward, ActionObserve, ActionVisualize}
}

// ErrBlankAction is Guard's answer to an empty or all-blank action. The text
// is the Python DAOKit's.
var ErrBlankAction = errors.New("action must be a non-empty string")

// ForbiddenActionError is Guard's answer to an action a relay may not
// perform. Action is the action, trimmed.
type ForbiddenActionError struct {
	Action string
}

// Error returns the Python DAOKit's denial text, byte for byte, so that
// logs of either tool read the same.
func (e *ForbiddenActionError) Error() string {
	return "relay mode blocks execution action '" + e.Action +
		"'; allowed relay actions: " + strings.Join(AllowedActions(), ", ")
}

// Guard returns nil for the actions a relay may perform (forward, observe,
// visualize, surrounding blanks ignored), ErrBlankAction for a blank one,
// and a *ForbiddenActionError for anything else. Matching is exact after
// trimming, as in the Python DAOKit: "Forward" is refused.
func Guard(action string) error {
	a := strings.TrimSpace(action)
	switch a {
	case "":
		return ErrBlankAction
	case ActionForward, ActionObserve, ActionVisualize:
		return nil
	}
	return &ForbiddenActionError{Action: a}
}

// requestAction is the action each request type performs. Control requests
// are forwards: the person asks, the controller decides.
var requestAction = map[Type]string{
	TypeInstruction: ActionForward,
	TypeControl:     ActionForward,
	TypeObserve:     ActionObserve,
	TypePing:        ActionObserve,
	TypeHello:       ActionObserve,
	// A forwarded command is a forward too: the CLI asks, the
	// controller carries it out through its own code, as its only
	// writer. GuardOperation keeps it off observer connections.
	TypeOperate: ActionForward,
}

// ErrObserverOperate is GuardOperation's answer on a connection that
// observes.
var ErrObserverOperate = &Error{Code: CodeObserving, Detail: string(TypeOperate)}

// GuardOperation is the observer-relay rule for forwarded commands
// (operate requests): they come from the CLI's own short connection,
// never from a connection that observes. A window observes from its
// first moment, so its connection can only forward what the person
// typed, observe and visualize, as the Python relay policy says; the
// takeover and handoff a person runs with daokit reach the controller on
// a connection of their own, with the action forward (Guard's three
// actions and their denial text are unchanged).
func GuardOperation(observing bool) error {
	if observing {
		return ErrObserverOperate
	}
	return nil
}

// checkRequest validates what both ends check before a request is handled:
// a usable id, an allowed action, and an action that fits the type. The
// client runs it before sending, the server again on receipt.
//
// The guard comes first, so that a forbidden action is refused as such
// whatever else is wrong with the request.
func checkRequest(e Envelope) error {
	if err := Guard(e.Action); err != nil {
		return err
	}
	want, ok := requestAction[e.Type]
	if !ok {
		return &Error{Code: CodeUnknownType, Detail: string(e.Type)}
	}
	if !validID(e.ID) {
		return &Error{Code: CodeBadRequest, Detail: "id"}
	}
	if strings.TrimSpace(e.Action) != want {
		return &Error{Code: CodeBadRequest, Detail: "action"}
	}
	return nil
}
