package config

import (
	"sort"
	"strconv"
)

// Team holds daokit.toml's settings for the role Leads (seed 003). The
// roles themselves, their repos and the soft group caps are the
// project's and live in workflow.toml; the hard caps are this machine's
// and live here.
type Team struct {
	// OutboxRoot is the folder holding workflow.toml (and, for the SQLite
	// outbox, its database), relative to the ledger root unless absolute.
	// Default ".". Without a workflow.toml there, the controller runs no
	// Leads.
	OutboxRoot string `toml:"outbox_root"`
	// RoleMaxConcurrent is the hard cap of Workers per role: a Lead runs
	// at most min(its group's soft cap, this) at once. A role not listed
	// gets DefaultRoleMaxConcurrent. Each value is 1 to MaxConcurrency.
	RoleMaxConcurrent map[string]int `toml:"role_max_concurrent"`
}

// DefaultRoleMaxConcurrent is the hard cap of a role daokit.toml does not
// name.
const DefaultRoleMaxConcurrent = 4

// HardCap returns role's hard cap.
func (t Team) HardCap(role string) int {
	if n, ok := t.RoleMaxConcurrent[role]; ok {
		return n
	}
	return DefaultRoleMaxConcurrent
}

// OutboxDir returns the outbox root made absolute against root.
func (t Team) OutboxDir(root string) string {
	dir := t.OutboxRoot
	if dir == "" {
		dir = "."
	}
	return resolveDir(root, dir)
}

func decodeTeam(t *table, c *Config) {
	s := t.sub("team")
	if s == nil {
		return
	}
	s.str("outbox_root", &c.Team.OutboxRoot)
	if caps := s.sub("role_max_concurrent"); caps != nil {
		c.Team.RoleMaxConcurrent = map[string]int{}
		for role := range caps.m {
			var n int
			if caps.integer(role, &n) {
				c.Team.RoleMaxConcurrent[role] = n
			}
		}
		caps.done()
	}
	s.done()
}

func (c *Config) validateTeam(p *problems) {
	roles := make([]string, 0, len(c.Team.RoleMaxConcurrent))
	for r := range c.Team.RoleMaxConcurrent {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		n, key := c.Team.RoleMaxConcurrent[r], "team.role_max_concurrent."+r
		switch {
		case n < 1:
			p.add(&Error{Code: CodeTooSmall, Key: key, Value: strconv.Itoa(n), Want: "1"})
		case n > MaxConcurrency:
			p.add(&Error{Code: CodeTooLarge, Key: key, Value: strconv.Itoa(n), Want: strconv.Itoa(MaxConcurrency)})
		}
	}
}
