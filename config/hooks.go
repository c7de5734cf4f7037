package config

import (
	"strings"
	"time"
)

// The hook points, in the order of the Python DAOKit's hook runtime.
const (
	HookPreDispatch  = "pre-dispatch"
	HookPostAccept   = "post-accept"
	HookPreCompact   = "pre-compact"
	HookSessionStart = "session-start"
)

// HookPoints lists the hook points in order.
func HookPoints() []string {
	return []string{HookPreDispatch, HookPostAccept, HookPreCompact, HookSessionStart}
}

// NormalizeHookPoint maps a written hook point to its canonical form the
// way the Python tool does (trimmed, lower case, "_" as "-"), and reports
// whether it is one of HookPoints.
func NormalizeHookPoint(s string) (string, bool) {
	p := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	for _, known := range HookPoints() {
		if p == known {
			return p, true
		}
	}
	return p, false
}

// Hook is one [[hooks]] entry of daokit.toml: an external command run at a
// lifecycle point. daokit only parses and checks hooks here; the hooks
// package runs them from their HookSpec.
type Hook struct {
	// Point is where the hook runs: pre-dispatch, post-accept,
	// pre-compact or session-start (PRE_COMPACT is accepted). Required.
	Point string `toml:"point"`
	// Name identifies the hook in results and logs. Required; unique per
	// point.
	Name string `toml:"name"`
	// Command is the program and its arguments. Required.
	Command []string `toml:"command"`
	// Timeout bounds one run of the hook. Default 10s; must be positive.
	Timeout Duration `toml:"timeout"`
	// Dir is the working directory, relative to the ledger root unless
	// absolute. Default "." (the root).
	Dir string `toml:"dir"`
	// Env adds to (and overrides) the controller's environment.
	Env Env `toml:"env"`
}

// HookSpec is a hook ready to run: point normalized, directory absolute,
// environment as "KEY=value" entries.
type HookSpec struct {
	Point   string
	Name    string
	Command []string
	Timeout time.Duration
	Dir     string
	Env     []string
}

// HookSpecs returns the configured hooks in file order, resolved against
// c.Root. Call it on a validated Config.
func (c *Config) HookSpecs() []HookSpec {
	specs := make([]HookSpec, 0, len(c.Hooks))
	for _, h := range c.Hooks {
		point, _ := NormalizeHookPoint(h.Point)
		specs = append(specs, HookSpec{
			Point:   point,
			Name:    h.Name,
			Command: append([]string(nil), h.Command...),
			Timeout: h.Timeout.Std(),
			Dir:     resolveDir(c.Root, h.Dir),
			Env:     append([]string(nil), h.Env...),
		})
	}
	return specs
}

// HookSpecsAt returns the hooks of one point, in file order.
func (c *Config) HookSpecsAt(point string) []HookSpec {
	var out []HookSpec
	for _, h := range c.HookSpecs() {
		if h.Point == point {
			out = append(out, h)
		}
	}
	return out
}
