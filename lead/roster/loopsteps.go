package roster

import (
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// A loop attempt (a role whose workflow is "loop") keeps each step's
// Worker in a folder of its own, named by the step's id: <attempt>/I1-coder/,
// <attempt>/I1-reviewer/, <attempt>/I1-judge/, … with the step's
// stdout.log, stderr.log, result.json (its exit) and step.json (its
// record, once it finished).

// loopStepPattern is a loop step's id: the iteration, then the lane's
// name (a workflow.toml name) or "judge". Compiled on first use, as
// team's names are (its {1,64} would cost every command at start).
var loopStepPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^I[1-9][0-9]{0,3}-[A-Za-z0-9._-]{1,64}$`) })

// ValidLoopStep reports whether s is a loop step's id (never a path that
// leaves the attempt's folder).
func ValidLoopStep(s string) bool { return loopStepPattern().MatchString(s) && s != "." && s != ".." }

// LatestLoopStep is the step of a loop attempt whose stdout.log was
// written last, "" when the attempt is not a loop's.
func LatestLoopStep(attemptDir string) string {
	ents, err := os.ReadDir(attemptDir)
	if err != nil {
		return ""
	}
	best, at := "", time.Time{}
	for _, e := range ents {
		if !e.IsDir() || !ValidLoopStep(e.Name()) {
			continue
		}
		fi, err := os.Stat(filepath.Join(attemptDir, e.Name(), "stdout.log"))
		if err == nil && fi.ModTime().After(at) {
			best, at = e.Name(), fi.ModTime()
		}
	}
	return best
}

// AttemptLogDir is the folder holding an attempt's logs: the attempt's
// own, or for a loop attempt the folder of the step that wrote last (the
// one at work, while the loop runs).
func AttemptLogDir(attemptDir string) string {
	if step := LatestLoopStep(attemptDir); step != "" {
		return filepath.Join(attemptDir, step)
	}
	return attemptDir
}
