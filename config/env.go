package config

import (
	"slices"
	"strings"
)

// Env is a list of environment entries "KEY=value" for a worker or hook
// process, added to (and overriding) the controller's own environment.
// In daokit.toml it is either a list of "KEY=value" strings or a table
// (env = { GOFLAGS = "-mod=mod" }); a table's entries are sorted by key so
// that the order never depends on the file's layout.
type Env []string

// Lookup returns the value of key and whether Env sets it. A later entry
// wins over an earlier one, as in exec.Cmd.Env.
func (e Env) Lookup(key string) (string, bool) {
	for _, kv := range slices.Backward(e) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// validEnvEntry reports whether kv is KEY=value with a non-empty key free
// of "=", and no NUL anywhere (the kernel cannot pass one).
func validEnvEntry(kv string) bool {
	k, _, ok := strings.Cut(kv, "=")
	return ok && k != "" && !strings.ContainsRune(kv, 0)
}
