package relay

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
)

// Code is a stable error code. Codes travel on the wire and are what the
// window and the CLI translate (see Describe); they never change meaning.
type Code string

// Codes a server sends. After the first four and forbidden_peer the server
// closes the connection; after the others the connection stays usable.
const (
	// CodeBadVersion: the line's "v" is not Version.
	CodeBadVersion Code = "bad_version"
	// CodeMalformed: the line is not a JSON envelope.
	CodeMalformed Code = "malformed"
	// CodeTooLarge: the line is longer than the cap (Detail: the cap).
	CodeTooLarge Code = "too_large"
	// CodeUnknownType: the type is not a request type (Detail: the type).
	CodeUnknownType Code = "unknown_type"
	// CodeForbiddenPeer: the peer runs as another user.
	CodeForbiddenPeer Code = "forbidden_peer"
	// CodeForbiddenAction: the request's action is not one of forward,
	// observe, visualize (Detail: the action).
	CodeForbiddenAction Code = "forbidden_action"
	// CodeBadRequest: a well-formed request with a bad field (Detail: the
	// field: id, action, text, kind, body).
	CodeBadRequest Code = "bad_request"
	// CodeInternal: the controller failed to handle the request.
	CodeInternal Code = "internal"
	// CodeBusy: the server is at its connection cap (Detail: the cap);
	// the connection closes. Try again later.
	CodeBusy Code = "busy"
	// CodeIdle: the connection sent nothing for the idle timeout
	// (Detail: the timeout); it closes.
	CodeIdle Code = "idle"
	// CodeSlow: a line took longer than the read timeout from its first
	// byte to its newline (Detail: the timeout); the connection closes.
	CodeSlow Code = "slow"
	// CodeUnavailable: no controller can take the request now (it is
	// shutting down, or not listening).
	CodeUnavailable Code = "unavailable"
	// CodeObserving: an operate request on a connection that observes
	// (a window's relay connection); see GuardOperation.
	CodeObserving Code = "observing"
)

// Codes a client reports on its own; they never travel on the wire.
const (
	// CodeWrongRoot: the server works on another ledger root (Detail: it).
	CodeWrongRoot Code = "wrong_root"
	// CodeClosed: the client was closed.
	CodeClosed Code = "closed"
	// CodeTimeout: the request's context ended before an answer came.
	CodeTimeout Code = "timeout"
	// CodeForbiddenFolder: the socket (or its private folder) cannot be
	// reached by this user: the controller runs as someone else (Detail:
	// the folder).
	CodeForbiddenFolder Code = "forbidden_folder"
)

// closesConn reports whether a server closes the connection after sending
// an error with this code: after these the stream cannot be trusted.
func (c Code) closesConn() bool {
	switch c {
	case CodeBadVersion, CodeMalformed, CodeTooLarge, CodeUnknownType, CodeForbiddenPeer, CodeBusy, CodeIdle, CodeSlow:
		return true
	}
	return false
}

// Error is a protocol error: the body of an error envelope, and the error a
// client call returns when the server refused a request. A Handler may
// return one to choose the code the client sees.
type Error struct {
	Code Code `json:"code"`
	// Detail is a value, never prose: a field name, a limit, an action.
	Detail string `json:"detail,omitempty"`
}

// Error implements error.
func (e *Error) Error() string {
	if e.Detail == "" {
		return "relay: " + string(e.Code)
	}
	return "relay: " + string(e.Code) + ": " + e.Detail
}

// Is matches another *Error with the same code, and the same detail if the
// target gives one, so errors.Is(err, &Error{Code: CodeTooLarge}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Detail == "" || t.Detail == e.Detail)
}

// ErrClosed is returned by calls on a Client after Close.
var ErrClosed = errors.New("relay: client closed")

// ErrServerClosed is returned by Serve on a Server that was already closed.
var ErrServerClosed = errors.New("relay: server closed")

// ErrServerRunning is returned by Listen when a live server already answers
// on the socket: a stale socket file is replaced, a live one never.
var ErrServerRunning = errors.New("relay: a server is already listening")

// UnsafeDirError is returned when a folder meant to hold the socket is not
// private to this user: Reason is "symlink", "not_dir" or "owner".
type UnsafeDirError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *UnsafeDirError) Error() string {
	return "relay: unsafe socket folder " + e.Path + ": " + e.Reason
}

// CodeOf returns the code that best names err for a person: the code of an
// *Error, forbidden_action for a guard refusal, closed, timeout, and
// unavailable when no server listens. It returns "" for nil and internal
// for anything else.
func CodeOf(err error) Code {
	var re *Error
	var fa *ForbiddenActionError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return re.Code
	case errors.As(err, &fa):
		return CodeForbiddenAction
	case errors.Is(err, ErrBlankAction):
		return CodeBadRequest
	case errors.Is(err, ErrClosed), errors.Is(err, ErrServerClosed):
		return CodeClosed
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, fs.ErrNotExist):
		return CodeUnavailable
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return CodeTimeout
	}
	return CodeInternal
}

// Refused reports whether err says this user may not talk to the
// controller (forbidden_peer, forbidden_folder): retrying cannot help,
// and starting another controller would not either.
func Refused(err error) bool {
	code := CodeOf(err)
	return code == CodeForbiddenPeer || code == CodeForbiddenFolder
}

// detailOf returns the Detail of an *Error in err's chain, or "".
func detailOf(err error) string {
	var re *Error
	if errors.As(err, &re) {
		return re.Detail
	}
	return ""
}

// wireError turns what validation or a handler returned into the error a
// client is sent. Anything that is not already a protocol error is
// internal; its text goes along as detail, since the peer is the same user.
func wireError(err error) *Error {
	var re *Error
	var fa *ForbiddenActionError
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &fa):
		return &Error{Code: CodeForbiddenAction, Detail: fa.Action}
	case errors.Is(err, ErrBlankAction):
		return &Error{Code: CodeBadRequest, Detail: "action"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeUnavailable}
	}
	return &Error{Code: CodeInternal, Detail: err.Error()}
}
