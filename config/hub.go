package config

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
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
	// Remote is the git remote agent hosts fetch a step's base commit
	// from, for lanes whose steps run in worktrees; empty: the step's
	// relay publishes a git bundle of it to the hub's object store, and
	// agents fetch that.
	Remote string `toml:"remote"`
}

// The values of Lane.Host.
const (
	// LaneHostLocal runs the lane's steps as children of the controller
	// (the default, "").
	LaneHostLocal = "local"
	// LaneHostHub offers the lane's steps through the hub to the agent
	// hosts that serve the lane (`daokit agent --lanes`).
	LaneHostHub = "hub"
)

// LaneHosts lists the values of lanes.host.
func LaneHosts() []string { return []string{LaneHostLocal, LaneHostHub} }

// OnHub reports whether the lane's steps run on agent hosts.
func (l Lane) OnHub() bool { return l.Host == LaneHostHub }

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
		s.str("remote", &c.Hub.Remote)
		s.done()
	}
}

// validateHub checks the lanes' hosts, a URL a NATS client dials, the
// root id's form (the rule of hub/naming, which config does not import:
// the window reads the configuration) and the lease. A lane on agent
// hosts needs the hub, and a name that can be a subject token.
func (c *Config) validateHub(p *problems) {
	onHub := false
	for i, l := range c.Lanes {
		switch l.Host {
		case "", LaneHostLocal:
		case LaneHostHub:
			onHub = true
			if !subjectToken(l.Name) {
				p.add(&Error{Code: CodeHubName, Key: "lanes[" + strconv.Itoa(i) + "].name", Value: show(l.Name)})
			}
		default:
			p.add(&Error{Code: CodeEnum, Key: "lanes[" + strconv.Itoa(i) + "].host", Value: show(l.Host), Want: strings.Join(LaneHosts(), ", ")})
		}
	}
	h := c.Hub
	if !h.Enabled() {
		if onHub || h.RootID != "" || h.Credentials != "" || h.Remote != "" {
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
	case !subjectToken(h.RootID):
		p.add(&Error{Code: CodeType, Key: "hub.root_id", Value: strconv.Quote(h.RootID), Want: "hub_root_id"})
	}
	atLeast(p, "hub.lease_ttl", h.LeaseTTL, minHubLeaseTTL)
}

// subjectToken is hub/naming's rule for a root id or a lane that names a
// subject (naming.ValidToken, kept the same by TestHubNamesAreNamingTokens):
// 1 to 64 lowercase ASCII letters, digits, '-' and '_', starting with a
// letter or digit. Repeated here so that the configuration, which the
// window reads, reaches no hub package.
func subjectToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}
