package banner

import (
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
)

// AttentionItem says what happened to the run that needs the person and
// what to type; ok is false when nothing needs them. The notify command
// sends the same words.
func AttentionItem(env *component.Env, st attention.State) (Item, bool) {
	why := ""
	if st.Reason != "" {
		why = env.T("tui.attention.why", "Reason", env.Clean(env.Labels.Or(component.KindReason, st.Reason)))
	}
	task := env.Clean(st.TaskID)
	switch st.Need {
	case attention.Blocked:
		return Item{Level: Error, Text: env.T("tui.attention.blocked", "Task", task, "Why", why)}, true
	case attention.Review:
		return Item{Level: Warn, Text: env.T("tui.attention.review", "Task", task)}, true
	case attention.Failed:
		return Item{Level: Error, Text: env.T("tui.attention.failed", "Task", task, "Why", why)}, true
	case attention.Finished:
		return Item{Level: Info, Text: env.T("tui.attention.finished", "Task", task, "Took", env.Duration(st.Took))}, true
	}
	return Item{}, false
}
