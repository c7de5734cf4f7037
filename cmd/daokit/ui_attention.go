package main

import (
	"log/slog"
	"os"
	"os/exec"

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
	c.Bell, c.Title, c.Notify, c.LongRun, c.Desktop = w.Bell, w.Title, w.Notify, w.LongRun.Std(), w.Desktop
	desktopNotifications(&c)
	return &c
}

// desktopNotifications finds what the platform has for notifications
// that reach the person off the terminal: notify-send on PATH when a
// desktop session is there to show it (over ssh it would only fail), and
// tmux, whose passthrough the terminal notifications need.
func desktopNotifications(c *attention.Config) {
	c.Tmux = os.Getenv("TMUX") != ""
	if !c.Desktop {
		return
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return
	}
	if p, err := exec.LookPath("notify-send"); err == nil {
		c.NotifySend = p
	}
}
