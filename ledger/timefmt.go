package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// FormatTime renders t the way Python's datetime.isoformat() renders an
// aware UTC datetime: 2026-02-12T09:48:00.123456+00:00, with the fraction
// left out entirely when the microseconds are zero. Never "Z".
func FormatTime(t time.Time) string {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// ParseTime reads the timestamps either tool writes, leniently, as
// Python 3.11's datetime.fromisoformat does: "Z" or a numeric offset or
// none (taken as UTC), "T" or a space between date and time, seconds and
// fraction optional (1 to 9 digits), or a bare date.
func ParseTime(s string) (time.Time, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return time.Time{}, fmt.Errorf("parse time: empty")
	}
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	layouts := []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"20060102T150405Z0700",
		"20060102T150405",
		"2006-01-02",
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("parse time %q: not an ISO 8601 timestamp", s)
}

// newID returns prefix followed by 32 random lowercase hex digits, the
// shape of Python's uuid4().hex ids (evt_…, lease_…).
func newID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])  // crypto/rand.Read never fails on Linux
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return prefix + hex.EncodeToString(b[:])
}

// NewEventID returns a fresh event id, evt_<32 hex>.
func NewEventID() string { return newID("evt_") }

// NewLeaseToken returns a fresh opaque lease token, lease_<32 hex>.
func NewLeaseToken() string { return newID("lease_") }

// DefaultRunID returns <task>_<YYYYMMDDTHHMMSSZ>, the Python tool's run id.
func DefaultRunID(taskID string, now time.Time) string {
	return taskID + "_" + now.UTC().Format("20060102T150405Z")
}
