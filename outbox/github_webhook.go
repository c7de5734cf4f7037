package outbox

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// WebhookSecretEnv holds the secret GitHub signs webhook deliveries with
// (the webhook's "Secret"); like the token it is never written anywhere
// and never given to a Worker.
const WebhookSecretEnv = "GITHUB_WEBHOOK_SECRET"

// ErrNoWebhookSecret: a webhook receiver needs the secret.
var ErrNoWebhookSecret = errors.New("outbox: no webhook secret (" + WebhookSecretEnv + ")")

// webhookEvents are the deliveries that can change the outbox; the rest
// are acknowledged and ignored.
var webhookEvents = map[string]bool{"issues": true, "issue_comment": true, "label": true}

// maxDelivery bounds a delivery's body (GitHub caps payloads at 25 MB).
const maxDelivery = 25 << 20

// GitLabWebhookSecretEnv holds the secret token of a GitLab project's
// webhook, which GitLab sends as X-Gitlab-Token; never given to a
// Worker.
const GitLabWebhookSecretEnv = "GITLAB_WEBHOOK_SECRET"

// WebhookSecretEnvOf is the variable that holds the webhook secret of
// service ("github", "gitlab").
func WebhookSecretEnvOf(service string) string {
	if service == GitLabActor {
		return GitLabWebhookSecretEnv
	}
	return WebhookSecretEnv
}

// hookDialect is how a service authenticates, names and types a
// webhook delivery.
type hookDialect struct {
	// authentic reports whether the delivery comes from the service.
	authentic func(secret, body []byte, h http.Header) bool
	// id is the delivery's id, the same on a redelivery.
	id func(h http.Header) string
	// wakes reports whether the delivery's event can change the outbox.
	wakes func(h http.Header) bool
}

var githubHook = hookDialect{
	authentic: func(secret, body []byte, h http.Header) bool {
		return validSignature(secret, body, h.Get("X-Hub-Signature-256"))
	},
	id:    func(h http.Header) string { return h.Get("X-GitHub-Delivery") },
	wakes: func(h http.Header) bool { return webhookEvents[h.Get("X-GitHub-Event")] },
}

// gitlabHookEvents are GitLab's deliveries that can change the outbox.
var gitlabHookEvents = map[string]bool{"Issue Hook": true, "Note Hook": true, "Confidential Issue Hook": true, "Confidential Note Hook": true}

// gitlabHook: GitLab sends the secret itself (X-Gitlab-Token), compared
// in constant time; a redelivery keeps its Idempotency-Key (GitLab 17.4
// and later) or X-Gitlab-Event-UUID.
var gitlabHook = hookDialect{
	authentic: func(secret, _ []byte, h http.Header) bool {
		return subtle.ConstantTimeCompare([]byte(h.Get("X-Gitlab-Token")), secret) == 1
	},
	id: func(h http.Header) string {
		if k := h.Get("Idempotency-Key"); k != "" {
			return k
		}
		return h.Get("X-Gitlab-Event-UUID")
	},
	wakes: func(h http.Header) bool { return gitlabHookEvents[h.Get("X-Gitlab-Event")] },
}

// WebhookHandler receives the service's webhook deliveries. A delivery
// that does not authenticate (GitHub: X-Hub-Signature-256 is not the
// HMAC-SHA256 of its body under secret; GitLab: X-Gitlab-Token is not
// secret) is refused (401); a delivery id seen before changes nothing
// (replays and the service's redeliveries); any other issue or comment
// delivery reads the service's changes into the mirror at once, which
// wakes the Leads watching it. The payload is only a wake-up call: what
// changed is read from the service with the cursor, as polling does,
// which stays the fallback and the truth.
func (g *Forge) WebhookHandler(secret []byte) (http.Handler, error) {
	if len(secret) == 0 {
		return nil, ErrNoWebhookSecret
	}
	if g.readOnly {
		return nil, ErrReadOnly
	}
	if _, err := g.db.Exec(`CREATE TABLE IF NOT EXISTS gh_deliveries(id TEXT PRIMARY KEY, time INTEGER NOT NULL) WITHOUT ROWID`); err != nil {
		return nil, err
	}
	hook := githubHook
	if g.c.service == GitLabActor {
		hook = gitlabHook
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxDelivery+1))
		if err != nil || len(body) > maxDelivery {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if !hook.authentic(secret, body, r.Header) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		id := hook.id(r.Header)
		if id == "" {
			http.Error(w, "no delivery id", http.StatusBadRequest)
			return
		}
		fresh, err := g.delivery(r.Context(), id)
		if err != nil {
			http.Error(w, "mirror: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if !fresh {
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "duplicate delivery\n")
			return
		}
		if !hook.wakes(r.Header) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		// GitHub waits 10 s for an answer (GitLab more); the sync is bounded by it,
		// and a sync that fails is caught up by the next poll.
		ctx, cancel := context.WithTimeout(r.Context(), 9*time.Second)
		defer cancel()
		if err := g.Sync(ctx); err != nil && !errors.Is(err, ErrRateLimited) {
			http.Error(w, "sync: "+err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}), nil
}

// validSignature checks "sha256=<hex>" in constant time.
func validSignature(secret, body []byte, header string) bool {
	hexSum, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// delivery records a delivery id; false when it was recorded before.
func (g *Forge) delivery(ctx context.Context, id string) (bool, error) {
	r, err := g.db.ExecContext(ctx, `INSERT INTO gh_deliveries(id, time) VALUES(?,?) ON CONFLICT DO NOTHING`, id, nowNanos())
	if err != nil {
		return false, err
	}
	n, _ := r.RowsAffected()
	return n == 1, nil
}
