package events

import (
	"encoding/json"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/worker/transcript"
)

// deniedSummary words the "denied" list of a step's end (the calls the
// agent's own permissions refused) in the reader's language: "denied ·
// Edit main.go; Bash go build". "" when the event has none.
func deniedSummary(env *component.Env, o ledger.Object) string {
	raw, ok := o.Get("denied")
	if !ok || len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var list []struct {
		Tool   string `json:"tool"`
		Target string `json:"target"`
	}
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return ""
	}
	calls := make([]string, 0, len(list))
	for _, d := range list {
		calls = append(calls, strings.TrimSpace(d.Tool+" "+d.Target))
	}
	return transcript.EventLabel(env.Loc, transcript.EventDenied) + " · " + strings.Join(calls, "; ")
}
