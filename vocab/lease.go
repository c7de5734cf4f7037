package vocab

import "github.com/daokit/daokit/i18n"

// LeaseStatus is a lease's status (process_leases.json "status").
type LeaseStatus string

// The lease statuses.
const (
	// LeaseStatusActive: a live holder has the lease.
	LeaseStatusActive LeaseStatus = "ACTIVE"
	// LeaseStatusReleased: its holder gave it back.
	LeaseStatusReleased LeaseStatus = "RELEASED"
	// LeaseStatusExpired: its holder stopped renewing it.
	LeaseStatusExpired LeaseStatus = "EXPIRED"
	// LeaseStatusTakenOver: the controller took it from a stale holder.
	LeaseStatusTakenOver LeaseStatus = "TAKEN_OVER"
)

// LeaseCatalog is the message id prefix of the lease statuses' labels.
const LeaseCatalog = "vocab.lease."

// LeaseStatuses lists every lease status.
func LeaseStatuses() []LeaseStatus {
	return []LeaseStatus{LeaseStatusActive, LeaseStatusReleased, LeaseStatusExpired, LeaseStatusTakenOver}
}

// Label returns s in loc's language; an unknown status is shown as it is.
func (s LeaseStatus) Label(loc *i18n.Localizer) string {
	return label(loc, LeaseCatalog, LeaseStatuses(), s)
}
