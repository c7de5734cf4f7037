package controller

import (
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
)

// The configured limits every part of the controller applies alike:
// how long a lease lives unrenewed, and how a failed step is restarted.

// restartPolicy is daokit.toml's [restart] over heal's defaults.
func (c *Controller) restartPolicy() heal.RestartPolicy {
	p := heal.DefaultRestartPolicy()
	rs := c.cfg.Restart
	if rs.MaxRestarts > 0 {
		p.MaxRestarts = rs.MaxRestarts
	}
	if rs.Window > 0 {
		p.Window = rs.Window.Std()
	}
	if rs.BackoffBase > 0 {
		p.BaseDelay = rs.BackoffBase.Std()
	}
	if rs.BackoffCap > 0 {
		p.MaxDelay = rs.BackoffCap.Std()
	}
	return p
}

// leaseTTL is how long the controller's leases live unrenewed.
func (c *Controller) leaseTTL() time.Duration { return leaseTTLOf(c.cfg) }

// leaseTTLOf is cfg's lease TTL; one under a second (or none) is the
// default, since the liveness loop renews about once a second.
func leaseTTLOf(cfg config.Config) time.Duration {
	if ttl := cfg.Lease.TTL.Std(); ttl >= time.Second {
		return ttl
	}
	return config.DefaultLeaseTTL
}
