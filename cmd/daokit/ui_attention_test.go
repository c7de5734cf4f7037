package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestWindowFindsDesktopNotifications: with a desktop session and
// notify-send on PATH the window uses it; desktop = false, or no desktop
// session (ssh), uses none; inside tmux the terminal notifications are
// wrapped for its passthrough.
func TestWindowFindsDesktopNotifications(t *testing.T) {
	bin := t.TempDir()
	send := filepath.Join(bin, "notify-send")
	if err := os.WriteFile(send, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("TMUX", "/tmp/tmux-1/default,1,0")
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name, toml, display string
		want                string
		desktop             bool
	}{
		{"desktop session", "", ":0", send, true},
		{"over ssh", "", "", "", true},
		{"turned off", "[window]\ndesktop = false\n", ":0", "", false},
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(tc.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("DISPLAY", tc.display)
		c := windowAttention(root, log)
		if c.NotifySend != tc.want || c.Desktop != tc.desktop || !c.Tmux {
			t.Errorf("%s: notify-send %q desktop %v tmux %v; want %q %v true", tc.name, c.NotifySend, c.Desktop, c.Tmux, tc.want, tc.desktop)
		}
	}
}
