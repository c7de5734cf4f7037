package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
)

// tokenBytes is the token's entropy: 256 bits, beyond any guessing over
// HTTP.
const tokenBytes = 32

// NewToken returns a random access token, URL-safe as it is.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenMatches compares in constant time, so that the time a refusal
// takes says nothing about how much of a guess was right.
func tokenMatches(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
