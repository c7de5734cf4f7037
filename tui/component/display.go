package component

import (
	"strings"

	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/theme"
)

// The window draws every run, step and task state from its display model
// (package projection): these are the only places that turn one into
// words, a colour or a mark, so that the task list, the pipeline, the
// conversation, the banner and /status say the same thing.

// Word words a display's word in env's language.
func Word(env *Env, w projection.Word) string {
	switch w.Kind {
	case projection.WordReceived:
		return env.T("tui.tasks.state.received")
	case projection.WordReview:
		return env.T("tui.tasks.state.review")
	case projection.WordAbandoned:
		return env.Labels.Or(KindReason, w.Value)
	case projection.WordPipeline:
		return env.Labels.Or(KindPipeline, w.Value)
	case projection.WordStep:
		return env.Labels.Or(KindStep, w.Value)
	}
	return env.Labels.Or(KindRun, w.Value)
}

// Tone is the colour of a mood.
func Tone(m projection.Mood) theme.Tone {
	switch m {
	case projection.MoodQuiet:
		return theme.ToneMuted
	case projection.MoodProgress:
		return theme.ToneProgress
	case projection.MoodGood:
		return theme.ToneOK
	case projection.MoodWarn:
		return theme.ToneWarn
	case projection.MoodBad:
		return theme.ToneBad
	}
	return theme.ToneNeutral
}

// Glyph is the mark of a step's mood: at work, done, failed, or not
// reached yet.
func Glyph(m projection.Mood, g theme.Glyphs) string {
	switch m {
	case projection.MoodProgress:
		return g.Running
	case projection.MoodGood:
		return g.Done
	case projection.MoodBad:
		return g.Failed
	}
	return g.Pending
}

// Suggest says what to type for a need, in env's language: its
// controls, each with what it does, joined by "or" ("" when the need
// suggests none).
func Suggest(env *Env, n projection.Need) string {
	cs := n.Suggest()
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = env.T("tui.attention.do." + string(c))
	}
	return strings.Join(parts, env.T("tui.attention.or"))
}
