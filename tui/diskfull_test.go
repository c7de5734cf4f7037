package tui

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/tui/live"
)

// TestDiskFullBanner follows the controller's state through the root as
// the relay reports it: while the controller says disk_full the banner
// says the disk is full, in the person's language; it goes when the
// controller is ready again, and does not outlive the connection.
func TestDiskFullBanner(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, banner string }{
		{"en", "The ledger's disk is full"},
		{"zh-CN", "账本所在磁盘已满"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(tt.lang)
			opts.Relay, opts.Controllers = newFakeRelay(), &fakeControllers{}
			m := newTestModel(t, opts, 200, 48)
			relay := func(u live.RelayUpdate) {
				_, cmd := m.Update(live.RelayMsg{Update: u})
				runQuick(m, cmd)
			}
			shown := func() bool { return strings.Contains(m.View(), tt.banner) }
			relay(live.RelayUpdate{Conn: &live.ConnState{Phase: live.ConnConnected}})
			relay(live.RelayUpdate{Controller: &live.ControllerState{State: "ready", PID: 4001}})
			if shown() {
				t.Fatalf("disk-full banner while the controller is ready:\n%s", m.View())
			}
			relay(live.RelayUpdate{Controller: &live.ControllerState{State: live.ControllerDiskFull, PID: 4001}})
			if !shown() {
				t.Fatalf("no disk-full banner while the controller reports disk_full, want %q:\n%s", tt.banner, m.View())
			}
			relay(live.RelayUpdate{Controller: &live.ControllerState{State: "ready", PID: 4001}})
			if shown() {
				t.Fatalf("disk-full banner stays after the controller is ready again:\n%s", m.View())
			}
			// A full status (the window's observe after a reconnect) raises it too.
			relay(live.RelayUpdate{Status: &live.Status{Controller: live.ControllerState{State: live.ControllerDiskFull, PID: 4001}}})
			if !shown() {
				t.Fatalf("no disk-full banner from a status that says disk_full:\n%s", m.View())
			}
			relay(live.RelayUpdate{Conn: &live.ConnState{Phase: live.ConnDisconnected, Err: &live.Error{Code: "unavailable"}}})
			if shown() {
				t.Errorf("disk-full banner outlives the connection:\n%s", m.View())
			}
		})
	}
}
