package transcript

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Codex reports a patch its sandbox refused only in its log on stderr:
// "… ERROR codex_core::tools::router: error=patch rejected: writing is
// blocked by read-only sandbox; rejected by user approval settings".
var (
	codexPatchRejected = []byte("patch rejected: ")
	codexRejectedTail  = "; rejected by user approval settings"
)

// Messages with which Codex refuses its command line on stderr: clap's
// errors, and exec outside a git repository without
// --skip-git-repo-check.
var codexRefusals = [][]byte{
	[]byte("error: unexpected argument"),
	[]byte("error: invalid value"),
	[]byte("error: the argument"),
	[]byte("Not inside a trusted directory and --skip-git-repo-check was not specified"),
}

// codexStderr reads a stderr line: a rejected patch is a denied
// apply_patch whose target is the sandbox's reason; a refused command
// line is an error of kind FailOptionRefused; the rest is plain output.
func codexStderr(line []byte) Decoded {
	if _, why, ok := bytes.Cut(line, codexPatchRejected); ok {
		reason := strings.TrimSuffix(strings.TrimSpace(string(why)), codexRejectedTail)
		return understood(denied("apply_patch", reason, ""))
	}
	for _, m := range codexRefusals {
		if bytes.Contains(line, m) {
			return understood(Event{Type: EventError, Text: OneLine(string(line), maxDetail), Failure: FailOptionRefused})
		}
	}
	return plain
}

// codexReconnect is the message of a Codex retry: "Reconnecting... 2/5
// (stream disconnected before completion: …)".
// Without a count it waits for the network: "Reconnecting... waiting for
// network (…)".
var codexReconnect = regexp.MustCompile(`^Reconnecting\.\.\. (?:(\d+)/(\d+) )?(?:[^(]*\((.*)\))?`)

// codexError is the event of an "error" line: a retry when Codex says it
// reconnects, else an error with the failure kind its message names.
func codexError(msg string) Event {
	if m := codexReconnect.FindStringSubmatch(msg); m != nil {
		attempt, _ := strconv.Atoi(m[1])
		max, _ := strconv.Atoi(m[2])
		r := &Retry{Status: textStatus(m[3]), Error: m[3], Attempt: attempt, Max: max}
		return Event{Type: EventRetry, Text: msg, Retry: r, Failure: httpFailure(r.Status)}
	}
	return Event{Type: EventError, Text: msg, Failure: codexFailure(msg)}
}

// codexFailure names what a Codex error message says went wrong: the
// provider's HTTP status, or credentials it does not have. Codex words a
// provider's 500 without its status.
func codexFailure(msg string) string {
	switch {
	case strings.HasPrefix(msg, "Missing environment variable") || strings.Contains(msg, "Not logged in"):
		return FailNotLoggedIn
	case strings.Contains(msg, "currently experiencing high demand"):
		return FailProvider
	}
	return httpFailure(textStatus(msg))
}
