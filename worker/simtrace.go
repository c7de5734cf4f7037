package worker

import (
	"os"
	"strconv"
)

// Trace marks of a simulated agent's run (see AppendSimTrace).
const (
	SimTraceStart = "start"
	SimTraceDone  = "done"
)

// AppendSimTrace appends one line "<mark> <task> <step> <pid>" to path,
// for drills that count how often each step's agent really ran: a run
// appends SimTraceStart before its first line and SimTraceDone once its
// result is written and it is about to exit 0. The file lies outside the
// ledger, so it counts what happened whatever the ledger says. One
// write(2) with O_APPEND: concurrent runs never interleave their lines.
func AppendSimTrace(path, mark string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	line := mark + " " + orDash(os.Getenv("DAOKIT_TASK_ID")) + " " + orDash(os.Getenv("DAOKIT_STEP_ID")) + " " +
		strconv.Itoa(os.Getpid()) + "\n"
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
