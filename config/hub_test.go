package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
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

// TestHubNamesAreNamingTokens: daokit check accepts exactly the root
// ids and hub lane names that hub/naming can make subjects of (the
// configuration keeps its own copy of the rule, so that the window
// reaches no hub package).
func TestHubNamesAreNamingTokens(t *testing.T) {
	for _, s := range []string{"", "a", "shop-1", "gpu_2", "-a", "_a", "A", "a.b", "a b", "é", "0", "a-",
		strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		if got, want := subjectToken(s), naming.ValidToken(s) == nil; got != want {
			t.Errorf("%q: config says %v, naming %v", s, got, want)
		}
	}
}

// TestHubLanes: a lane with host = "hub" needs [hub] url and a root id
// that can name subjects, and a name that can be a subject token; an
// unknown host is refused with the allowed ones; a valid file loads.
func TestHubLanes(t *testing.T) {
	ok := "[hub]\nurl = \"nats://127.0.0.1:4222\"\nroot_id = \"proj-1\"\ncredentials = \"hub.nk\"\n" +
		"[[lanes]]\nname = \"remote\"\nhost = \"hub\"\n"
	c, err := Parse([]byte(ok), "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	lane, _ := c.Lane("remote")
	if !lane.OnHub() || c.Hub.RootID != "proj-1" || c.Hub.CredentialsPath("/r") != "/r/hub.nk" {
		t.Errorf("lane %+v hub %+v", lane, c.Hub)
	}
	for _, tc := range []struct {
		file string
		want []Error
	}{
		{"[[lanes]]\nname = \"remote\"\nhost = \"hub\"\n",
			[]Error{{Code: CodeRequired, Key: "hub.url"}}},
		{"[hub]\nurl = \"nats://h\"\nroot_id = \"Proj\"\n[[lanes]]\nname = \"Remote.1\"\nhost = \"hub\"\n",
			[]Error{{Code: CodeHubName, Key: "lanes[0].name"}, {Code: CodeType, Key: "hub.root_id"}}},
		{"[[lanes]]\nname = \"w\"\nhost = \"cloud\"\n",
			[]Error{{Code: CodeEnum, Key: "lanes[0].host", Want: "local, hub"}}},
	} {
		_, err := Parse([]byte(tc.file), "daokit.toml", "/r")
		var errs Errors
		if !errors.As(err, &errs) {
			t.Fatalf("%q: err %v, want Errors", tc.file, err)
		}
		for _, w := range tc.want {
			found := false
			for _, e := range errs {
				if e.Code == w.Code && e.Key == w.Key && (w.Want == "" || e.Want == w.Want) {
					found = true
				}
			}
			if !found {
				t.Errorf("%q: no %s at %s in %v", tc.file, w.Code, w.Key, err)
			}
		}
	}
}
