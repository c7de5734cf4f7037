package banner

import (
	"github.com/daokit/daokit/projection"
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
	case attention.None:
		return Item{}, false
	case attention.Finished:
		return Item{Level: levelOf(st.Need.Mood()), Text: env.T("tui.attention.finished", "Task", task, "Took", env.Duration(st.Took))}, true
	}
	// What happened, by the need's name, and what to type, from the
	// controls the projection says work for that need.
	return Item{Level: levelOf(st.Need.Mood()), Text: env.T("tui.attention."+st.Need.String(), "Task", task, "Why", why,
		"Do", component.Suggest(env, st.Need))}, true
}

// levelOf is the banner level of a mood.
func levelOf(m projection.Mood) Level {
	switch m {
	case projection.MoodBad:
		return Error
	case projection.MoodWarn:
		return Warn
	}
	return Info
}
