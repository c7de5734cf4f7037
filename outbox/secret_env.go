package outbox

import "strings"

// secretEnv are the variables that hold GitHub and GitLab credentials: no Worker
// gets them (seed 003: only Leads hold Outbox credentials), and the
// controller, which reads the token to open pull requests, hands none
// of them to the agents it runs.
var secretEnv = []string{"GITHUB_TOKEN=", "GH_TOKEN=", "GH_ENTERPRISE_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=", WebhookSecretEnv + "=",
	GitLabTokenEnv + "=", GitLabWebhookSecretEnv + "="}

// IsSecretEnv reports whether kv ("NAME=value") is a GitHub or GitLab
// credential.
func IsSecretEnv(kv string) bool {
	for _, p := range secretEnv {
		if strings.HasPrefix(kv, p) {
			return true
		}
	}
	return false
}

// WithoutSecrets returns env without the GitHub and GitLab credentials.
func WithoutSecrets(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !IsSecretEnv(kv) {
			out = append(out, kv)
		}
	}
	return out
}
