package config

import (
	"net/url"
	"path/filepath"
	"strconv"
	"time"
)

// Hub puts the root on a daokit hub (issue 31): its controller campaigns
// for the root's lease there and writes every ledger event through the
// hub's stream before its own files, so that one controller leads the
// root wherever it runs and other hosts can mirror it. Without a URL
// nothing changes.
type Hub struct {
	// URL is the hub's client address: nats://host:port or tls://….
	// Default "": no hub.
	URL string `toml:"url"`
	// RootID names the root on the hub (lowercase letters, digits, '-'
	// and '_', at most 64): every controller and mirror of this root
	// uses the same id. Required with url.
	RootID string `toml:"root_id"`
	// Credentials is the hub's nkey seed file (admin.nk in its data
	// directory), relative to the ledger root unless absolute. Default
	// "": none (a hub started with --anonymous on loopback).
	Credentials string `toml:"credentials"`
	// LeaseTTL is how long the root's lease lives without a renewal: a
	// leader that stops (crashed, paused, cut off) is replaced about this
	// long after. Default 10s; at least 1s.
	LeaseTTL Duration `toml:"lease_ttl"`
}

// DefaultHubLeaseTTL is hub.lease_ttl's default.
const DefaultHubLeaseTTL = Duration(10 * time.Second)

// minHubLeaseTTL is the shortest lease: the hub expires keys about once
// a second.
const minHubLeaseTTL = time.Second

// Enabled reports whether the root is on a hub.
func (h Hub) Enabled() bool { return h.URL != "" }

// CredentialsPath is Credentials made absolute against root; "" when
// there are none.
func (h Hub) CredentialsPath(root string) string {
	if h.Credentials == "" || filepath.IsAbs(h.Credentials) {
		return h.Credentials
	}
	return filepath.Join(root, h.Credentials)
}

func decodeHub(t *table, c *Config) {
	if s := t.sub("hub"); s != nil {
		s.str("url", &c.Hub.URL)
		s.str("root_id", &c.Hub.RootID)
		s.str("credentials", &c.Hub.Credentials)
		s.duration("lease_ttl", &c.Hub.LeaseTTL)
		s.done()
	}
}

// validateHub checks a URL a NATS client dials, the root id's form (the
// rule of hub/naming, which config does not import) and the lease.
func (c *Config) validateHub(p *problems) {
	h := c.Hub
	if !h.Enabled() {
		if h.RootID != "" || h.Credentials != "" {
			p.add(&Error{Code: CodeRequired, Key: "hub.url"})
		}
		return
	}
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
		p.add(&Error{Code: CodeType, Key: "hub.url", Value: strconv.Quote(h.URL), Want: "hub_url"})
	}
	switch {
	case h.RootID == "":
		p.add(&Error{Code: CodeRequired, Key: "hub.root_id"})
	case !validRootID(h.RootID):
		p.add(&Error{Code: CodeType, Key: "hub.root_id", Value: strconv.Quote(h.RootID), Want: "hub_root_id"})
	}
	atLeast(p, "hub.lease_ttl", h.LeaseTTL, minHubLeaseTTL)
}

// validRootID is hub/naming's ValidRootID: 1 to 64 lowercase letters,
// digits, '-' and '_', starting with a letter or digit.
func validRootID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}
