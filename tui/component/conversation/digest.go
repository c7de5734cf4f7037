package conversation

import (
	"slices"

	"github.com/daokit/daokit/tui/live"
)

// digestLines is how many of a step's newest output lines are kept.
const digestLines = 6

// digestSteps bounds how many steps' output is kept.
const digestSteps = 8

// digest keeps the newest worker output lines of the latest steps. It is
// a live view, not history: the ledger and the worker's log keep that.
type digest struct {
	steps []string // oldest first
	lines map[string][]live.OutputLine
}

func (d *digest) add(o live.OutputLine) {
	if d.lines == nil {
		d.lines = map[string][]live.OutputLine{}
	}
	if _, ok := d.lines[o.StepID]; !ok {
		d.steps = append(d.steps, o.StepID)
		if len(d.steps) > digestSteps {
			delete(d.lines, d.steps[0])
			d.steps = slices.Delete(d.steps, 0, 1)
		}
	}
	l := append(d.lines[o.StepID], o)
	if len(l) > digestLines {
		l = append(l[:0], l[len(l)-digestLines:]...)
	}
	d.lines[o.StepID] = l
}

// of returns the newest lines of step, or of the latest step when step is
// empty.
func (d *digest) of(step string) (string, []live.OutputLine) {
	if step == "" && len(d.steps) > 0 {
		step = d.steps[len(d.steps)-1]
	}
	return step, d.lines[step]
}
