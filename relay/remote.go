package relay

import (
	"context"
	"fmt"
)

// AnswerRemote answers one request that reached the controller another
// way than its socket: through the hub, from a person on another host
// (package hub/remote). Instructions, control requests, pings and hellos
// go through the same checks, the same one-call-per-id flights and the
// same Handler as a socket's, so a request resent through either way is
// recognised by its id. Observe and operate are refused: a remote person
// reads the root from a mirror, and ledger commands stay on the root's
// own host.
func (s *Server) AnswerRemote(ctx context.Context, env Envelope, via string) Envelope {
	if env.V != Version {
		return errorAnswer(env.ID, &Error{Code: CodeBadVersion, Detail: fmt.Sprint(env.V)})
	}
	if err := checkRequest(env); err != nil {
		return errorAnswer(env.ID, wireError(err))
	}
	if env.Type == TypeObserve || env.Type == TypeOperate {
		return errorAnswer(env.ID, &Error{Code: CodeForbiddenAction, Detail: string(env.Type)})
	}
	return s.handle(ctx, Request{ID: env.ID, Via: via}, env)
}
