package main

import (
	"log/slog"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/tui/attention"
)

// windowAttention is how the window calls its person, from the [window]
// section of daokit.toml. A configuration that does not load keeps the
// defaults (banner, bell and title, no command): the controller reports
// the configuration error.
func windowAttention(root string, logger *slog.Logger) *attention.Config {
	c := attention.DefaultConfig()
	cfg, err := config.Load(root)
	if err != nil {
		logger.Warn("attention_defaults", "err", err) // the configuration did not load
		return &c
	}
	w := cfg.Window
	c.Bell, c.Title, c.Notify, c.LongRun = w.Bell, w.Title, w.Notify, w.LongRun.Std()
	return &c
}
