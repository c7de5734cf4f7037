package team

import (
	"strings"

	"github.com/daokit/daokit/i18n"
)

// Code is the stable identity of a workflow.toml problem; the message is
// "team.error.<Code>".
type Code string

// The problem codes.
const (
	// CodeRead: the file cannot be read (Detail).
	CodeRead Code = "WORKFLOW_READ"
	// CodeMissing: there is no workflow.toml (Detail = the path).
	CodeMissing Code = "WORKFLOW_MISSING"
	// CodeSyntax: not valid TOML, or a value of the wrong type (Detail).
	CodeSyntax Code = "WORKFLOW_SYNTAX"
	// CodeUnknownKey: a key daokit does not know (Key).
	CodeUnknownKey Code = "WORKFLOW_UNKNOWN_KEY"
	// CodeNoRoles: no [roles.*] at all.
	CodeNoRoles Code = "WORKFLOW_NO_ROLES"
	// CodeName: a role or group name outside A-Z a-z 0-9 . _ - (Key, Value).
	CodeName Code = "WORKFLOW_NAME"
	// CodeUnknownRole: a reference to a role that does not exist (Key,
	// Value, Want = the roles there are).
	CodeUnknownRole Code = "WORKFLOW_UNKNOWN_ROLE"
	// CodeCycle: depends_on loops (Key, Value = the loop).
	CodeCycle Code = "WORKFLOW_CYCLE"
	// CodeCap: a cap out of range (Key, Value, Want = "1–64").
	CodeCap Code = "WORKFLOW_CAP"
	// CodeBackend: an outbox backend V1 does not have (Value).
	CodeBackend Code = "WORKFLOW_BACKEND"
	// CodeHub: a setting of the nats backend missing or malformed (url,
	// root), or given to a backend that does not take it (Key, Value,
	// Want = the backend that takes it).
	CodeHub Code = "WORKFLOW_HUB"
	// CodeKind: a role's Worker kind daokit cannot read (Value, Want =
	// the kinds it can).
	CodeKind Code = "WORKFLOW_KIND"
	// CodeRepo: outbox.repo missing or not owner/name for the github
	// backend, or set for one that has no repository (Value, Want =
	// the backend that takes it).
	CodeRepo Code = "WORKFLOW_REPO"
	// CodeAPIURL: outbox.api_url is not an http(s) URL (Value).
	CodeAPIURL Code = "WORKFLOW_API_URL"
	// CodeFlow: a role's workflow is neither single nor loop (Value,
	// Want = the workflows there are).
	CodeFlow Code = "WORKFLOW_FLOW"
	// CodeLane: a loop's coder, reviewer or judge_lane is missing
	// (Value "-") or names no lane of the role (Want = its lanes).
	CodeLane Code = "WORKFLOW_LANE"
	// CodeJudge: a loop's judge is unknown (Want = the judges), or
	// judge = "command" without judge_command (Value "-").
	CodeJudge Code = "WORKFLOW_JUDGE"
	// CodeLoopOnly: a loop's setting on a role whose workflow is not
	// "loop" (Key, Want = loop).
	CodeLoopOnly Code = "WORKFLOW_LOOP_ONLY"
	// CodeIterations: max_iterations out of range (Value, Want).
	CodeIterations Code = "WORKFLOW_ITERATIONS"
	// CodeDeliver: a role's deliver is not "pr", or is "pr" with an
	// outbox that is no forge (Key, Value, Want = the backend).
	CodeDeliver Code = "WORKFLOW_DELIVER"
)

// Error is one problem of workflow.toml (or of daokit.toml's hard caps
// against it).
type Error struct {
	Code             Code
	File             string
	Key, Value, Want string
	Detail           string
}

// Error renders the problem in English.
func (e *Error) Error() string { return e.Localize(i18n.MustNew(i18n.English)) }

// Localize renders the problem in loc's language, prefixed with the file.
func (e *Error) Localize(loc *i18n.Localizer) string {
	msg := loc.T("team.error."+string(e.Code), "Key", e.Key, "Value", e.Value, "Want", e.Want, "Detail", e.Detail)
	if e.File == "" {
		return msg
	}
	return loc.T("team.error.at_file", "File", e.File, "Message", msg)
}

// Errors is every problem found, in a stable order.
type Errors []*Error

// Error joins the English messages.
func (es Errors) Error() string { return es.Localize(i18n.MustNew(i18n.English)) }

// Localize renders every problem, one per line.
func (es Errors) Localize(loc *i18n.Localizer) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Localize(loc)
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
