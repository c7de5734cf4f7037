package fakegithub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// SignWebhook is the X-Hub-Signature-256 GitHub sends for body, so that
// a test can deliver a webhook as GitHub would (or sign it with the
// wrong secret).
func SignWebhook(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
