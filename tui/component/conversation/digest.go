package conversation

import (
	"slices"

	"github.com/daokit/daokit/tui/live"
)

// digestLines is how many of a step's newest output lines are kept.
const digestLines = 6

// digestSteps bounds how many steps' output is kept.
const digestSteps = 8

// outputKey names the step a worker's output belongs to: task, run and
// step together, since every run of every task has a "coder" step.
type outputKey struct {
	task, run, step string
}

func keyOf(o live.OutputLine) outputKey {
	return outputKey{task: o.TaskID, run: o.RunID, step: o.StepID}
}

// digest keeps the newest worker output lines of the latest steps. It is
// a live view, not history: the ledger and the worker's log keep that.
type digest struct {
	steps []outputKey // oldest first
	lines map[outputKey][]live.OutputLine
}

func (d *digest) add(k outputKey, o live.OutputLine) {
	if d.lines == nil {
		d.lines = map[outputKey][]live.OutputLine{}
	}
	if _, ok := d.lines[k]; !ok {
		d.steps = append(d.steps, k)
		if len(d.steps) > digestSteps {
			delete(d.lines, d.steps[0])
			d.steps = slices.Delete(d.steps, 0, 1)
		}
	}
	l := append(d.lines[k], o)
	if len(l) > digestLines {
		l = append(l[:0], l[len(l)-digestLines:]...)
	}
	d.lines[k] = l
}

// shown is the step whose output the pane shows: with a task in focus,
// that task's latest step with output; otherwise the active step (even
// before it printed anything: another task's lines are never shown in
// its place), or the latest step before the window knows the active one.
func (d *digest) shown(focus string, active outputKey) outputKey {
	for i := len(d.steps) - 1; i >= 0 && focus != ""; i-- {
		if d.steps[i].task == focus {
			return d.steps[i]
		}
	}
	if focus != "" {
		return outputKey{task: focus}
	}
	if active != (outputKey{}) || len(d.steps) == 0 {
		return active
	}
	return d.steps[len(d.steps)-1]
}

// of returns the newest lines of step k.
func (d *digest) of(k outputKey) []live.OutputLine { return d.lines[k] }
