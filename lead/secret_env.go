package lead

import (
	"github.com/daokit/daokit/outbox"
)

// secretEnv are the variables that hold outbox credentials: a Worker
// never gets them (seed 003: only Leads hold Outbox credentials).
var secretEnv = []string{"GITHUB_TOKEN=", "GH_TOKEN=", "GH_ENTERPRISE_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=", outbox.WebhookSecretEnv + "=",
	outbox.GitLabTokenEnv + "=", outbox.GitLabWebhookSecretEnv + "="}

// isSecretEnv reports whether kv ("NAME=value") is an outbox credential.
func isSecretEnv(kv string) bool {
	for _, p := range secretEnv {
		if len(kv) >= len(p) && kv[:len(p)] == p {
			return true
		}
	}
	return false
}
