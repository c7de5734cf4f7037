package config

import (
	"errors"
	"strings"

	"github.com/daokit/daokit/i18n"
)

// Code is the stable identity of a configuration problem. The CLI and the
// window translate it with the message "config.error.<Code>".
type Code string

// The problem codes.
const (
	// CodeRead: the file exists but cannot be read (Detail).
	CodeRead Code = "CONFIG_READ"
	// CodeSyntax: the file is not valid TOML (Line, Col, Detail).
	CodeSyntax Code = "CONFIG_SYNTAX"
	// CodeUnknownKey: a key daokit does not know, usually a typo (Key).
	CodeUnknownKey Code = "CONFIG_UNKNOWN_KEY"
	// CodeType: a value of the wrong TOML type (Key, Value, Want = the
	// expected type: string, boolean, integer, duration, string_list, env,
	// table or table_list).
	CodeType Code = "CONFIG_TYPE"
	// CodeDuration: text that is not a duration (Key, Value).
	CodeDuration Code = "CONFIG_DURATION"
	// CodeRequired: a required setting is missing or empty (Key).
	CodeRequired Code = "CONFIG_REQUIRED"
	// CodeTooSmall: below the minimum (Key, Value, Want = minimum).
	CodeTooSmall Code = "CONFIG_TOO_SMALL"
	// CodeTooLarge: above the maximum (Key, Value, Want = maximum).
	CodeTooLarge Code = "CONFIG_TOO_LARGE"
	// CodeOrder: must be at least another setting (Key, Value, Other,
	// OtherValue), e.g. stale_after below warning_after.
	CodeOrder Code = "CONFIG_ORDER"
	// CodeEnum: not one of the allowed values (Key, Value, Want = list).
	CodeEnum Code = "CONFIG_ENUM"
	// CodeDuplicate: a name used twice (Key, Value, Other = first use).
	CodeDuplicate Code = "CONFIG_DUPLICATE"
	// CodeUnknownLane: a step names a lane that does not exist (Key, Value).
	CodeUnknownLane Code = "CONFIG_UNKNOWN_LANE"
	// CodeNoInstruction: a command lane would never receive the
	// instruction: neither stdin nor {instruction} in command (Key).
	CodeNoInstruction Code = "CONFIG_NO_INSTRUCTION"
	// CodeNoSession: a resume_command without {session}, which could not
	// resume anything (Key).
	CodeNoSession Code = "CONFIG_NO_SESSION"
	// CodeEnv: an environment entry that is not KEY=value (Key, Value).
	CodeEnv Code = "CONFIG_ENV"
	// CodeName: a name that does not match ledger.IDPattern (Key,
	// Value).
	CodeName Code = "CONFIG_NAME"
	// CodeCallbackCommand: a command on a callback whose kind runs none
	// (Key, Value = the kind).
	CodeCallbackCommand Code = "CONFIG_CALLBACK_COMMAND"
	// CodeHubName: a hub root id, or the name of a lane whose steps run
	// on agent hosts, that cannot be one subject token (Key, Value).
	CodeHubName Code = "CONFIG_HUB_NAME"
)

// Error is one problem in daokit.toml or in a Config. Which fields are set
// depends on Code (see the Code constants).
type Error struct {
	Code Code
	// File is the path of daokit.toml; empty when validating a Config
	// that did not come from a file.
	File string
	// Line and Col locate syntax errors (1-based; 0 when unknown).
	Line, Col int
	// Key is the setting, as a path: "heartbeat.stale_after",
	// "lanes[1].timeout" (0-based index).
	Key string
	// Value is the offending value as TOML would write it (strings
	// quoted).
	Value string
	// Want is what was expected: a type, a bound, or the allowed values.
	Want string
	// Other and OtherValue name the setting of a cross-field rule.
	Other, OtherValue string
	// Detail is the underlying error's text for CodeRead and CodeSyntax.
	Detail string
	// Err is the underlying error, if any.
	Err error
}

// Error renders the problem in English; people get Localize.
func (e *Error) Error() string { return e.Localize(i18n.MustNew(i18n.English)) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Localize renders the problem in loc's language, prefixed with the file
// (and line) it is in.
func (e *Error) Localize(loc *i18n.Localizer) string {
	want := e.Want
	if e.Code == CodeType {
		want = loc.T("config.type." + want)
	}
	msg := loc.T("config.error."+string(e.Code),
		"Key", e.Key, "Value", e.Value, "Want", want,
		"Other", e.Other, "OtherValue", e.OtherValue, "Detail", e.Detail)
	switch {
	case e.File != "" && e.Line > 0:
		return loc.T("config.error.at_line", "File", e.File, "Line", e.Line, "Message", msg)
	case e.File != "":
		return loc.T("config.error.at_file", "File", e.File, "Message", msg)
	}
	return msg
}

// Errors is every problem found in one load or validation, in file order.
// errors.As(err, &e) with e *Error finds the first.
type Errors []*Error

// Error joins the English messages, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Localize renders every problem in loc's language, one per line.
func (es Errors) Localize(loc *i18n.Localizer) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Localize(loc)
	}
	return strings.Join(lines, "\n")
}

// AsErrors returns the problems carried by err (an *Error or Errors), or
// nil when err carries none.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return Errors{e}
	}
	return nil
}

// problems collects Errors with a common file name.
type problems struct {
	file string
	list Errors
}

func (p *problems) add(e *Error) {
	if e.File == "" {
		e.File = p.file
	}
	p.list = append(p.list, e)
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return p.list
}
