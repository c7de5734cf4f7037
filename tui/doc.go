// Package tui is daokit's window, the observer relay: a Bubble Tea
// program that forwards what the person types to the controller,
// observes the ledger and the controller's notices, and draws them. It
// never executes, routes or takes over anything itself.
//
// The root Model only routes messages and lays the panes out:
//
//	route bar                      component/routebar
//	banner (problems)              component/banner
//	pipeline │ conversation        component/pipeline, component/conversation
//	heartbeat│                     component/heartbeat
//	leases   │ events              component/leases, component/events
//	input                          component/input
//	status bar                     component/statusbar
//	help line / full help          component/helpview
//
// Every pane implements component.Component (tea.Model, help.KeyMap,
// SetSize) and is built with one read-only component.Env (styles from
// theme, the key map from keys, the localizer, labels of stored values);
// a language switch builds a new Env and sends it to every pane.
//
// Everything the window learns arrives through the small interfaces of
// package live (a ledger feed, a relay, a way to find and start a
// controller), read by commands that are re-armed after each message, so
// Update and View never do IO. Messages are routed by family, never by a
// list of types: each child's messages implement its marker interface
// (relayctx.Msg, live.LinkMsg, live.AnswerMsg), key presses go to the
// focused pane after the few global keys, and every other message goes
// to every pane. The root tells panes things by messages (NoteMsg,
// banner.SetMsg, ...), panes tell the root by messages
// (input.SubmittedMsg), and View only draws what Update settled. How a
// new pane plugs in is written on Model.dispatch. The link
// to the controller (probe, start, wait, lost, exited) is followed by
// package link, the relay context and its compaction by package
// relayctx. The adapters to the real ledger watcher and relay client are
// LedgerSource (feed_ledger.go) and RelayLink (feed_relay.go); the CLI
// provides the Controllers that start `daokit controller`.
package tui
