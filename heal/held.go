package heal

import (
	"sync"
	"time"

	"github.com/daokit/daokit/ledger"
)

// Held is a lease as its holder keeps it: its token in the register and
// the time of its last renewal on the holder's monotonic clock, guarded
// by a lock of its own (etcd's lease.go keeps expiry the same way).
//
// The register's expiry is wall-clock time, because other processes read
// it. The holder must not judge its own lease by it: a jump of the wall
// clock past the TTL would make a live holder drop a lease nobody took
// from it. Remaining and Renew use the monotonic reading of the times
// they are given (time.Now's), so only real elapsed time expires a Held.
type Held struct {
	mu      sync.Mutex
	spec    LeaseSpec
	token   string
	renewed time.Time
}

// Hold registers a lease for spec in reg and returns it held from now.
func Hold(reg *ledger.Leases, spec LeaseSpec, now time.Time) (*Held, error) {
	l, err := Register(reg, spec, now)
	if err != nil {
		return nil, err
	}
	return &Held{spec: spec, token: l.LeaseToken, renewed: now}, nil
}

// Adopt returns l, a lease TakeOver issued to a successor that then
// went on with a ttl of ttl at now, as held by that successor: it renews
// and re-registers the lease like one it registered itself, so that a
// successor holding a step for longer than the TTL (a restart's backoff,
// a wait for a lane) keeps the register truthful.
func Adopt(l ledger.Lease, ttl time.Duration, now time.Time) *Held {
	spec := LeaseSpec{Lane: l.Lane, TaskID: l.TaskID, RunID: l.RunID, StepID: l.StepID,
		Holder: Holder{ThreadID: l.ThreadID, PID: l.PID}, TTL: ttl}
	return &Held{spec: spec, token: l.LeaseToken, renewed: now}
}

// Token returns the lease's current token.
func (h *Held) Token() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.token
}

// Spec returns what the lease was registered for.
func (h *Held) Spec() LeaseSpec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.spec
}

// Remaining returns how long the lease has left by the holder's clock;
// zero or less means the holder let it lapse (it was paused, or its
// checks stopped for longer than the TTL).
func (h *Held) Remaining(now time.Time) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return ttlSeconds(h.spec.TTL) - now.Sub(h.renewed)
}

// Renew extends the lease in reg to now + TTL. It fails with a
// *LeaseError when the lease lapsed by the holder's clock
// (LeaseIsExpired; the record is marked EXPIRED), or when the register no
// longer has it ACTIVE (LeaseNotFound, LeaseNotActive: pruned, taken
// over). The holder must act on the error: Reacquire registers a fresh
// lease for the same holder and step.
func (h *Held) Renew(reg *ledger.Leases, now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := find(reg, h.token)
	if err != nil {
		return err
	}
	if l.Status != ledger.LeaseActive {
		return &LeaseError{Code: LeaseNotActive, Token: h.token, Status: l.Status}
	}
	at := ledger.FormatTime(now)
	if now.Sub(h.renewed) >= ttlSeconds(h.spec.TTL) {
		l.Status, l.UpdatedAt = ledger.LeaseExpired, at
		return &LeaseError{Code: LeaseIsExpired, Token: h.token}
	}
	l.LastHeartbeatAt, l.UpdatedAt = at, at
	l.Expiry = ledger.FormatTime(now.Add(ttlSeconds(h.spec.TTL)))
	h.renewed = now
	return nil
}

// Reacquire registers a fresh lease for the same holder and step after a
// failed Renew, and returns the token it replaced. A lapsed record that
// is still ACTIVE is marked EXPIRED first, so that the register never
// shows two live leases of one holder for one step.
func (h *Held) Reacquire(reg *ledger.Leases, now time.Time) (old string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l, ferr := find(reg, h.token); ferr == nil && l.Status == ledger.LeaseActive {
		l.Status, l.UpdatedAt = ledger.LeaseExpired, ledger.FormatTime(now)
	}
	fresh, err := Register(reg, h.spec, now)
	if err != nil {
		return "", err
	}
	old, h.token, h.renewed = h.token, fresh.LeaseToken, now
	return old, nil
}

// Release ends the lease normally; see the package function Release.
func (h *Held) Release(reg *ledger.Leases, now time.Time) error {
	return Release(reg, h.Token(), now)
}
