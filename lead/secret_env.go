package lead

import (
	"github.com/daokit/daokit/outbox"
)

// isSecretEnv reports whether kv ("NAME=value") is an outbox credential,
// which a Worker never gets (seed 003: only Leads hold Outbox
// credentials).
func isSecretEnv(kv string) bool { return outbox.IsSecretEnv(kv) }
