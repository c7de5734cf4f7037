package main

import (
	"github.com/daokit/daokit/config"
)

// configFailure is E_CONFIG_INVALID with every problem of daokit.toml,
// one line each, in the file's order.
func (a *app) configFailure(root string, err error) error {
	if es := config.AsErrors(err); len(es) > 0 {
		return failf("E_CONFIG_INVALID", es.Localize(a.loc))
	}
	return failf("E_CONFIG_INVALID", a.t("cli.file.unreadable", "Path", config.Path(root), "Reason", a.osReason(err)))
}

// loadConfig reads and validates root's daokit.toml (the defaults when
// there is none).
func (a *app) loadConfig(root string) (config.Config, error) {
	cfg, err := config.Load(root)
	if err != nil {
		return config.Config{}, a.configFailure(root, err)
	}
	return cfg, nil
}
