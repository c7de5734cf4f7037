package main

import (
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/vocab"
)

// word words a display word of the projection in the reader's language,
// as the window's task list does (the same catalog entries), so that
// status, send and the window say the same thing of a run or a step.
func (a *app) word(w projection.Word) string {
	switch w.Kind {
	case projection.WordReceived:
		return a.t("tui.tasks.state.received")
	case projection.WordReview:
		return a.t("tui.tasks.state.review")
	case projection.WordAbandoned:
		return vocab.Reason(w.Value).Label(a.loc)
	case projection.WordPipeline:
		return vocab.Status(w.Value).Label(a.loc)
	case projection.WordStep:
		return vocab.StepState(w.Value).Label(a.loc)
	}
	return vocab.RunState(w.Value).Label(a.loc)
}
