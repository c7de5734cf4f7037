package main

import (
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/liveness"
)

// holderLiveError is an automatic start refused because a live process
// holds the root's lock: a second controller beside it would fight it
// for the root (or fence it), which is the person's decision, not a
// command's. Its text, in the reader's language, names the holder and
// what to do; the window shows it as it is.
type holderLiveError struct {
	pid  int
	text string
}

// newHolderLiveError words the refusal for ctl, the live holder of root.
// A holder whose standing lease lapsed is paused or stuck: the person
// may fence it with an explicit `daokit controller`; a busy one is
// waited for.
func newHolderLiveError(loc *i18n.Localizer, root string, ctl liveness.Controller) *holderLiveError {
	id := "cli.error.holder_busy"
	if ctl.Hung() {
		id = "cli.error.holder_hung"
	}
	return &holderLiveError{pid: ctl.PID, text: loc.T(id, "PID", ctl.PID, "Root", root)}
}

// Error implements error.
func (e *holderLiveError) Error() string { return e.text }
