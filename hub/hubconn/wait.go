package hubconn

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/nats-io/nats.go"
)

// waitBackoff spaces the attempts of DialWait: soon after a hub restart
// (a SIGKILLed hub is back in tens of milliseconds), at most every 2 s
// through a longer outage.
var waitBackoff = backoff.Capped{Base: 100 * time.Millisecond, Max: 2 * time.Second}

// DialWait connects to the hub like Dial, but a hub that is down or
// unreachable is waited for until ctx ends: a hub outage is a wait, not
// an end, for the commands and daemons that need it. waiting (may be
// nil) is called once, with the first failure, so that a person or a log
// learns why nothing happens yet. A refused key or a malformed address is
// not waited for: the hub answered, or never can.
func DialWait(ctx context.Context, o Options, waiting func(error)) (*Conn, error) {
	for n := 0; ; n++ {
		c, err := Dial(o)
		if err == nil || !Unreachable(err) {
			return c, err
		}
		if n == 0 && waiting != nil {
			waiting(err)
		}
		if !backoff.Sleep(ctx, waitBackoff.Jittered(n, nil)) {
			return nil, errors.Join(ctx.Err(), err)
		}
	}
}

// Unreachable reports whether err says the hub could not be reached or
// could not take the connection yet (down, restarting, too busy, the
// network in between failing), as opposed to an answer that waiting
// cannot change: the hub refusing this key, a key file that cannot be
// read, an address that is not one, a certificate this client does not
// trust.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	for _, refused := range []error{nats.ErrAuthorization, nats.ErrAuthExpired, nats.ErrAuthRevoked,
		nats.ErrPermissionViolation, nats.ErrAccountAuthExpired, errCredentials} {
		if errors.Is(err, refused) {
			return false
		}
	}
	msg := strings.ToLower(err.Error())
	for _, final := range []string{"authorization", "invalid url", "no such host", "x509", "tls:"} {
		if strings.Contains(msg, final) {
			return false // a name, a key or a certificate waiting cannot mend
		}
	}
	return true
}
