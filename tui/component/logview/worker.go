package logview

import (
	"path/filepath"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/tui/live"
)

// A Lead's Worker keeps its logs as a controller step's worker does, one
// folder per attempt (roster.AttemptDir); the view follows the latest
// attempt, so that a Worker restarted after going STALE shows its new
// attempt's output without the person opening it again. (Here, not in
// live: the dashboard takes live and must not reach the team's packages.)

// LoadWorkerLog reads the named log (stdout.log, stderr.log) of the
// latest attempt kept in attempts (roster.IssueAttemptsDir): from offset
// on when that attempt's log is cur, else from the start (Reset). No
// attempt yet reads as an empty log of no path. The LogMsg carries
// Worker = attempts and the attempt read.
func LoadWorkerLog(attempts, name, cur string, offset int64) tea.Cmd {
	return func() tea.Msg {
		atts, err := roster.AttemptsIn(attempts)
		if err != nil || len(atts) == 0 {
			return live.LogMsg{Worker: attempts, Err: err, Reset: true}
		}
		last := atts[len(atts)-1]
		path := filepath.Join(roster.AttemptLogDir(filepath.Join(attempts, strconv.Itoa(last))), name)
		if path != cur {
			offset = -1
		}
		msg := live.LoadLog(path, offset)().(live.LogMsg)
		msg.Worker, msg.Attempt = attempts, last
		return msg
	}
}
