package component

import (
	"context"
	"errors"

	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/live/outboxes"
	"github.com/daokit/daokit/vocab"
)

// KindRelayError labels the relay's error codes.
const KindRelayError = "tui.relay.error"

// ErrorText says what went wrong in the person's language: relay failures
// by their code, a timeout as a timeout, anything else by its own text
// (cleaned for the screen).
func ErrorText(env *Env, err error) string {
	var re *live.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re) && vocab.Result(re.Code).Known():
		// The controller's answer: worded with its detail, itself worded
		// when it is a stored value (not_running of a BLOCKED run).
		return env.Clean(vocab.Result(re.Code).Label(env.Loc, re.Detail))
	case errors.As(err, &re):
		s := env.Labels.Or(KindRelayError, re.Code)
		if re.Detail != "" {
			s += " (" + env.Clean(re.Detail) + ")"
		}
		return s
	case errors.Is(err, context.DeadlineExceeded):
		return env.Labels.Or(KindRelayError, "timeout")
	case errors.Is(err, outboxes.ErrHubUnreadable):
		return env.T("tui.outbox.hub_unreadable")
	case errors.Is(err, context.Canceled), errors.Is(err, live.ErrClosed):
		return env.Labels.Or(KindRelayError, "closed")
	}
	return env.Clean(err.Error())
}
