// Package live is how the world reaches the window: the small interfaces
// the window consumes (a ledger feed, a relay to the controller, a way to
// find and start a controller), the values they deliver, the messages
// that carry those values into the program, and the commands that wait
// for them.
//
// Every blocking call runs inside a tea.Cmd built here. A command copies
// what it needs (the interface value, the context, the text) when it is
// built and never touches a model; the model re-arms it after each
// message, so that a slow window applies back-pressure instead of
// queueing unbounded messages.
package live
