package conversation

import "time"

// NoteMsg tells the pane to record a note of the window's own (a
// connection change, a controller start, an answer to /status). A note
// given by catalog ID (with Args as key, value pairs) is rendered in the
// person's language each time it is drawn, so a language switch redraws
// it; Text is for what has no catalog entry. A zero At is stamped with
// the environment's clock.
type NoteMsg struct {
	Kind Kind
	At   time.Time
	ID   string
	Args []string
	Text string
}

// SentMsg tells the pane that the person sent Text, numbered Seq so that
// its answer (a live.AnswerMsg with the same Seq) marks it delivered.
type SentMsg struct {
	Seq  int
	At   time.Time
	Text string
	// Task is the task the message was about (the steered task); ""
	// for a new task (its entry joins the task its answer names).
	Task string
	// FollowUp: the message went to Task as a follow-up.
	FollowUp bool
}

// FocusMsg tells the pane which task the window is focused on: the pane
// then shows that task's entries and output, and the window's own notes;
// an empty TaskID shows everything.
type FocusMsg struct {
	TaskID string
}
