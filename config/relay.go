package config

import (
	"strconv"
	"strings"
)

// Relay is the relay policy switch: the rollback of seed 000 §6.4. With
// policy "off" the window keeps its relay context but never compacts it
// (no pre-compact hook runs); nothing in the ledger changes shape, so
// turning it back "on" needs no migration either. The observer-relay
// rule itself (the window forwards, observes and visualizes; the
// controller executes) is not a policy and stays.
type Relay struct {
	// Policy is RelayPolicyOn (default) or RelayPolicyOff.
	Policy string `toml:"policy"`
}

// The relay policies.
const (
	RelayPolicyOn  = "on"
	RelayPolicyOff = "off"
)

// RelayPolicies lists the values of relay.policy.
func RelayPolicies() []string { return []string{RelayPolicyOn, RelayPolicyOff} }

// Compact holds the thresholds at which the window compacts its relay
// context (compact.Triggers reads them). 0 turns a threshold off.
type Compact struct {
	// MaxEntries compacts once the context's lists hold more entries
	// than this. Default 500.
	MaxEntries int `toml:"max_entries"`
	// MaxBytes compacts once the context's JSON is longer than this.
	// Default 262144 (256 KiB).
	MaxBytes int `toml:"max_bytes"`
	// RepeatedStatus compacts once this many status reports in a row
	// say the same thing. Default 3; 1 is refused (every report would
	// compact).
	RepeatedStatus int `toml:"repeated_status"`
}

// The shipped compaction thresholds (compact.DefaultTriggers: a test
// keeps the two equal).
const (
	DefaultCompactMaxEntries     = 500
	DefaultCompactMaxBytes       = 256 << 10
	DefaultCompactRepeatedStatus = 3
)

// DefaultCompact returns the shipped thresholds.
func DefaultCompact() Compact {
	return Compact{MaxEntries: DefaultCompactMaxEntries, MaxBytes: DefaultCompactMaxBytes, RepeatedStatus: DefaultCompactRepeatedStatus}
}

func decodeRelay(t *table, c *Config) {
	if s := t.sub("relay"); s != nil {
		s.str("policy", &c.Relay.Policy)
		s.done()
	}
	if s := t.sub("compact"); s != nil {
		s.integer("max_entries", &c.Compact.MaxEntries)
		s.integer("max_bytes", &c.Compact.MaxBytes)
		s.integer("repeated_status", &c.Compact.RepeatedStatus)
		s.done()
	}
}

// validateRelay checks the policy's name and thresholds that cannot work.
func (c *Config) validateRelay(p *problems) {
	if c.Relay.Policy != RelayPolicyOn && c.Relay.Policy != RelayPolicyOff {
		p.add(&Error{Code: CodeEnum, Key: "relay.policy", Value: show(c.Relay.Policy), Want: strings.Join(RelayPolicies(), ", ")})
	}
	k := c.Compact
	if k.MaxEntries < 0 {
		p.add(&Error{Code: CodeTooSmall, Key: "compact.max_entries", Value: strconv.Itoa(k.MaxEntries), Want: "0"})
	}
	if k.MaxBytes < 0 {
		p.add(&Error{Code: CodeTooSmall, Key: "compact.max_bytes", Value: strconv.Itoa(k.MaxBytes), Want: "0"})
	}
	switch {
	case k.RepeatedStatus < 0:
		p.add(&Error{Code: CodeTooSmall, Key: "compact.repeated_status", Value: strconv.Itoa(k.RepeatedStatus), Want: "0"})
	case k.RepeatedStatus == 1:
		// 0 (off) is fine too; 1 would compact at every report.
		p.add(&Error{Code: CodeTooSmall, Key: "compact.repeated_status", Value: "1", Want: "2"})
	}
}
