package config

import (
	"errors"
	"testing"
	"time"
)

// TestHubSection: [hub] loads with its defaults, and `daokit check`
// (Parse validates) names each setting that cannot work.
func TestHubSection(t *testing.T) {
	c, err := Parse([]byte("[hub]\nurl = \"nats://hub.example:4222\"\nroot_id = \"team-a\"\ncredentials = \"keys/admin.nk\"\n"), "daokit.toml", "/ledger")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Hub.Enabled() || c.Hub.LeaseTTL.Std() != 10*time.Second || c.Hub.CredentialsPath("/ledger") != "/ledger/keys/admin.nk" {
		t.Errorf("hub = %+v, want enabled, lease 10s, credentials under the root", c.Hub)
	}
	if d, _ := Parse(nil, "daokit.toml", "/ledger"); d.Hub.Enabled() {
		t.Error("no [hub]: the root is on a hub")
	}
	for _, tc := range []struct {
		toml, key string
		code      Code
	}{
		{"[hub]\nurl = \"http://hub:4222\"\nroot_id = \"a\"\n", "hub.url", CodeType},
		{"[hub]\nurl = \"nats://hub:4222\"\n", "hub.root_id", CodeRequired},
		{"[hub]\nurl = \"nats://hub:4222\"\nroot_id = \"Team A\"\n", "hub.root_id", CodeType},
		{"[hub]\nurl = \"nats://hub:4222\"\nroot_id = \"a\"\nlease_ttl = \"500ms\"\n", "hub.lease_ttl", CodeTooSmall},
		{"[hub]\nroot_id = \"a\"\n", "hub.url", CodeRequired},
	} {
		_, err := Parse([]byte(tc.toml), "daokit.toml", "/ledger")
		var e *Error
		if !errors.As(err, &e) || e.Key != tc.key || e.Code != tc.code {
			t.Errorf("%q: got %v, want %s on %s", tc.toml, err, tc.code, tc.key)
		}
	}
}
