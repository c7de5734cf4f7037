package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// claudeOutcomeLine holds the members of a Claude Code line that say how
// the work went rather than what it did: permission denials, the
// provider's errors and the CLI's retries. It is embedded in claudeLine.
type claudeOutcomeLine struct {
	// Error is the kind of a provider error: on an assistant line that the
	// CLI made up to report it ("model":"<synthetic>") and on api_retry.
	Error string `json:"error"`
	// APIErrorStatus is the HTTP status of the provider's error, on that
	// assistant line and on the result (null when no request was made).
	APIErrorStatus *int `json:"api_error_status"`
	// ErrorStatus, Attempt, MaxRetries and RetryDelayMS describe an
	// api_retry line.
	ErrorStatus  *int  `json:"error_status"`
	Attempt      int   `json:"attempt"`
	MaxRetries   int   `json:"max_retries"`
	RetryDelayMS int64 `json:"retry_delay_ms"`
	// ToolName and ToolUseID name the call a permission_denied line
	// refused.
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	// PermissionDenials lists, on the result, every call refused.
	PermissionDenials []claudeDenial `json:"permission_denials"`
}

type claudeDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// claudeOutcome is the decoder's memory for outcomes: the targets of the
// calls made so far, the denials already reported, and the provider
// error the CLI reported before its result.
type claudeOutcome struct {
	targets  map[string]string
	reported map[string]bool
	apiError string
}

// UnmarshalJSON reads a message object; a system line's "message" is a
// plain sentence (permission_denied), which carries nothing the decoder
// needs beyond the line's other members.
func (m *claudeMessage) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return nil
	}
	type object claudeMessage
	return json.Unmarshal(data, (*object)(m))
}

// maxTargets bounds the calls whose targets are remembered: a denial
// comes right after its call, so forgetting old ones loses nothing.
const maxTargets = 256

// noteTarget remembers what a tool call is about, for a denial that
// names only its id.
func (o *claudeOutcome) noteTarget(id, target string) {
	if o.targets == nil || len(o.targets) >= maxTargets {
		o.targets = map[string]string{}
	}
	o.targets[id] = target
}

// system decodes the system lines that matter to the outcome: api_retry
// (the CLI retries a failed request) and permission_denied (a call
// refused as it happens). ok is false for other subtypes.
func (o *claudeOutcome) system(l *claudeLine) (Event, bool) {
	switch l.Subtype {
	case "api_retry":
		r := &Retry{Error: l.Error, Attempt: l.Attempt, Max: l.MaxRetries, DelayMS: l.RetryDelayMS}
		if l.ErrorStatus != nil {
			r.Status = *l.ErrorStatus
		}
		return Event{Type: EventRetry, Text: l.Error, Retry: r, Failure: claudeErrorFailure(l.Error, r.Status)}, true
	case "permission_denied":
		if l.ToolName == "" {
			return Event{}, false
		}
		return o.deny(l.ToolName, l.ToolUseID, o.targets[l.ToolUseID]), true
	}
	return Event{}, false
}

// deny is the event of a refused call, once per call id.
func (o *claudeOutcome) deny(tool, id, target string) Event {
	if id != "" {
		if o.reported == nil {
			o.reported = map[string]bool{}
		}
		o.reported[id] = true
	}
	return denied(tool, target, id)
}

// noteAPIError remembers the provider error of a line the CLI made up to
// report one.
func (o *claudeOutcome) noteAPIError(l *claudeLine) {
	if l.Error != "" {
		o.apiError = l.Error
	}
}

// result returns the denials the result lists that were not reported as
// they happened, and sets the result's failure kind.
func (o *claudeOutcome) result(l *claudeLine, ev *Event) []Event {
	var events []Event
	for _, d := range l.PermissionDenials {
		if d.ToolUseID != "" && o.reported[d.ToolUseID] {
			continue
		}
		events = append(events, o.deny(d.ToolName, d.ToolUseID, toolArgument(d.ToolInput)))
	}
	ev.Failure = o.failure(l)
	return events
}

// failure names what a result says went wrong: the provider's status
// when it answered, the CLI's own error kind when it did not (no
// credentials at all: no request was made), or the turn limit.
func (o *claudeOutcome) failure(l *claudeLine) string {
	if l.Subtype == "error_max_turns" {
		return FailMaxTurns
	}
	if !l.IsError {
		return ""
	}
	status := 0
	if l.APIErrorStatus != nil {
		status = *l.APIErrorStatus
	}
	if status == 0 && o.apiError == "authentication_failed" {
		return FailNotLoggedIn
	}
	return claudeErrorFailure(o.apiError, status)
}

// claudeErrorFailure maps Claude Code's error kinds (and the HTTP
// status, which wins when there is one) to a failure kind.
func claudeErrorFailure(kind string, status int) string {
	if f := httpFailure(status); f != "" {
		return f
	}
	switch kind {
	case "authentication_failed", "oauth_org_not_allowed", "cloud_credential_error", "account_on_hold", "verification_required":
		return FailAuth
	case "rate_limit", "overloaded":
		return FailRateLimited
	case "billing_error", "invalid_request", "model_not_found", "server_error", "unknown":
		return FailProvider
	}
	return ""
}

// Messages with which Claude Code refuses its command line on stderr
// (commander's errors, and its refusal of bypassPermissions as root).
var claudeRefusals = [][]byte{
	[]byte("error: unknown option"),
	[]byte("error: too many arguments"),
	[]byte("error: option '"),
	[]byte("error: required option"),
	[]byte("cannot be used with root/sudo privileges"),
}

// claudeStderr reads a stderr line: a refused command line is an error
// of kind FailOptionRefused; anything else is plain output.
func claudeStderr(line []byte) Decoded {
	for _, m := range claudeRefusals {
		if bytes.Contains(line, m) {
			text := strings.TrimSpace(string(line))
			return understood(Event{Type: EventError, Text: OneLine(text, maxDetail), Failure: FailOptionRefused})
		}
	}
	return plain
}
