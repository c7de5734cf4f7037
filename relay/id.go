package relay

import (
	"crypto/rand"
	"encoding/hex"
)

// maxIDLen caps a message id. Ids become ledger dedup keys, so they stay
// short and printable.
const maxIDLen = 128

// NewID returns a fresh message id: 128 random bits in hex. Clients pick
// ids so that a resend after a reconnect can carry the same one and the
// controller can recognise it.
func NewID() string {
	var b [16]byte
	// crypto/rand.Read never fails on the systems Go supports.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validID reports whether id is usable as a message id: 1 to maxIDLen
// printable ASCII characters, no blanks.
func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}
