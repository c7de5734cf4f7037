package transcript

import "strings"

// FailNoAnswer: the agent CLI says it succeeded, but its model answered
// nothing at all in the run: no text, no tool call. Claude Code ends so
// (exit 0, subtype success, result "") when its model's answers are
// empty even after its own nudge ("[Your previous response had no
// visible output…]", a synthetic user line), whatever emptied them: a
// gateway that answers its retry of a broken stream with an empty
// message, a model that only thought. Codex completes the turn with an
// empty agent_message. Nothing was done, so the step must not pass.
const FailNoAnswer = "no_answer"

// answerWatch wraps an agent CLI's decoder and names a successful
// result FailNoAnswer when the model neither said nor did anything
// before it. A run whose last answer is empty after real work (a tool
// call, then nothing) still passes: the CLIs print the same empty result
// then, and the work is there for the reviewer and the judge.
type answerWatch struct {
	Decoder
	// answered: the model said something or called a tool in this
	// process (a decoder lives as long as one process).
	answered bool
}

// Decode implements Decoder.
func (a *answerWatch) Decode(s Stream, line []byte) Decoded {
	d := a.Decoder.Decode(s, line)
	for i := range d.Events {
		ev := &d.Events[i]
		switch ev.Type {
		case EventTool, EventToolResult, EventDenied:
			a.answered = true
		case EventMessage:
			if strings.TrimSpace(ev.Text) != "" {
				a.answered = true
			}
		case EventResult:
			if !a.answered && !ev.Failed && ev.Failure == "" && strings.TrimSpace(ev.Text) == "" {
				ev.Failure = FailNoAnswer
			}
		}
	}
	return d
}
