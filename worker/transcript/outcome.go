package transcript

import (
	"regexp"
	"strconv"
	"strings"
)

// Failure kinds: what an agent CLI said went wrong, in words that do not
// depend on the CLI. Stable strings (Event.Failure); the controller maps
// each to a reason code, so that the person reads "authentication failed"
// rather than "exited with an error", and nothing a restart cannot fix is
// restarted.
const (
	// FailAuth: the provider refused the credentials (HTTP 401 or 403).
	FailAuth = "auth_failed"
	// FailNotLoggedIn: the CLI has no credentials at all and sent nothing.
	FailNotLoggedIn = "not_logged_in"
	// FailRateLimited: the provider said too many requests (429) or that
	// it is overloaded (529).
	FailRateLimited = "rate_limited"
	// FailProvider: any other error of the provider (5xx, a request it
	// rejected, a model it does not have, billing).
	FailProvider = "provider_error"
	// FailMaxTurns: the agent used up its turn limit before finishing.
	FailMaxTurns = "max_turns"
	// FailOptionRefused: the CLI refused its own command line (an unknown
	// option, bypassPermissions as root, Codex outside a git repository).
	FailOptionRefused = "option_refused"
	// FailRefused: the model's safeguards refused the request (Claude
	// Code's stop_reason "refusal"); the same request is refused again.
	FailRefused = "model_refused"
)

// Retry is an agent CLI retrying a request its model provider failed.
type Retry struct {
	// Status is the HTTP status of the failed request, 0 when there was
	// none (a connection that broke).
	Status int
	// Error is the CLI's word for the error ("authentication_failed",
	// "overloaded") or its message.
	Error string
	// Attempt is the retry's number, Max the most the CLI makes (0 when
	// it does not say).
	Attempt, Max int
	// DelayMS is how long the CLI waits before it, when it says.
	DelayMS int64
}

// Futile reports whether waiting for the CLI's further retries is
// pointless: a provider that refused the credentials refuses them again,
// and Claude Code would spend about three minutes finding that out.
func (r Retry) Futile() bool { return r.Status == 401 || r.Status == 403 }

// httpFailure is the failure kind of an HTTP status from a model
// provider, "" for a status that is not an error.
func httpFailure(status int) string {
	switch {
	case status == 401 || status == 403:
		return FailAuth
	case status == 429 || status == 529:
		return FailRateLimited
	case status >= 400:
		return FailProvider
	}
	return ""
}

// denied returns the event of a refused tool call.
func denied(tool, target, id string) Event {
	return Event{Type: EventDenied, Tool: tool, Text: OneLine(target, maxDetail), ID: id}
}

// statusInText finds an HTTP status in an error message ("unexpected
// status 401 Unauthorized", "last status: 429 Too Many Requests", "API
// Error: 529 …").
var statusInText = regexp.MustCompile(`(?:status:?|API Error:|\()\s*([1-5][0-9][0-9])\b`)

// textStatus is the HTTP status an error message names, or 0.
func textStatus(msg string) int {
	if m := statusInText.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// RetryDetail is what a retry says in any language: the status, the
// CLI's word for the error and the attempt ("401 authentication_failed,
// 2/10").
func RetryDetail(r Retry) string {
	var parts []string
	if r.Status != 0 {
		parts = append(parts, strconv.Itoa(r.Status))
	}
	if e := OneLine(r.Error, maxDetail); e != "" {
		parts = append(parts, e)
	}
	s := strings.Join(parts, " ")
	if r.Attempt > 0 && r.Max > 0 {
		s += ", " + strconv.Itoa(r.Attempt) + "/" + strconv.Itoa(r.Max)
	}
	return s
}
