package config

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Hub is how the root reaches a daokit hub (issue 31): today, for the
// lanes whose steps run on agent hosts (Lane.Host = LaneHostHub).
type Hub struct {
	// URL is the hub's client URL (nats://host:4222, tls://…).
	URL string `toml:"url"`
	// RootID names this root on the hub (its subjects and streams):
	// lowercase letters, digits, '-' and '_' (subjectToken). The
	// agent hosts are started with the same --root-id.
	RootID string `toml:"root_id"`
	// Creds is the hub's key file, relative to the ledger root unless
	// absolute; empty: connect without (an anonymous loopback hub).
	Creds string `toml:"creds"`
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

// CredsPath is Creds resolved against the ledger root, or "".
func (h Hub) CredsPath(root string) string {
	if h.Creds == "" || filepath.IsAbs(h.Creds) {
		return h.Creds
	}
	return filepath.Join(root, h.Creds)
}

func decodeHub(t *table, c *Config) {
	if s := t.sub("hub"); s != nil {
		s.str("url", &c.Hub.URL)
		s.str("root_id", &c.Hub.RootID)
		s.str("creds", &c.Hub.Creds)
		s.str("remote", &c.Hub.Remote)
		s.done()
	}
}

// validateHub checks the lanes' hosts and, when a lane runs on agent
// hosts, what reaching them needs: the hub's URL, a root id, and lane
// names that can be a subject token.
func (c *Config) validateHub(p *problems) {
	onHub := false
	for i, l := range c.Lanes {
		key := "lanes[" + strconv.Itoa(i) + "].host"
		switch l.Host {
		case "", LaneHostLocal:
		case LaneHostHub:
			onHub = true
			if !subjectToken(l.Name) {
				p.add(&Error{Code: CodeHubName, Key: "lanes[" + strconv.Itoa(i) + "].name", Value: show(l.Name)})
			}
		default:
			p.add(&Error{Code: CodeEnum, Key: key, Value: show(l.Host), Want: strings.Join(LaneHosts(), ", ")})
		}
	}
	h := c.Hub
	if !onHub && h.URL == "" && h.RootID == "" {
		return
	}
	if h.URL == "" {
		p.add(&Error{Code: CodeRequired, Key: "hub.url"})
	}
	if h.RootID == "" {
		p.add(&Error{Code: CodeRequired, Key: "hub.root_id"})
	} else if !subjectToken(h.RootID) {
		p.add(&Error{Code: CodeHubName, Key: "hub.root_id", Value: show(h.RootID)})
	}
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
