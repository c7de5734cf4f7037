package worker

import (
	"github.com/daokit/daokit/i18n"

	"github.com/daokit/daokit/worker/transcript"
)

// Roles of the simulated agent (SimOptions.Role).
const (
	SimRoleCoder    = "coder"
	SimRoleReviewer = "reviewer"
)

// DefaultSimApproveAt is the iteration from which the simulated reviewer
// approves: it requests changes once, with findings, then approves.
const DefaultSimApproveAt = 2

// simVerdict is the structured line the simulated reviewer ends with;
// the workflow package reads it (workflow.ParseVerdict). It is built here
// rather than imported so that workers stay below the workflow package.
func simVerdict(decision, reason string, findings []string, escalate bool) string {
	line := `VERDICT: {"verdict":` + quote(decision) + `,"reason":` + quote(reason) + `,"findings":[`
	for i, f := range findings {
		if i > 0 {
			line += ","
		}
		line += quote(f)
	}
	line += "]"
	if escalate {
		line += `,"escalate":true`
	}
	return line + "}"
}

// review is the simulated reviewer's run: it reads the files, lists its
// findings and ends with its verdict — request_changes before iteration
// ApproveAt, approve from it on (never with NeverApprove; escalate with
// Escalate).
func (s *simRun) review(sc *simScript) int {
	loc := s.o.Loc
	it := max(s.o.Iteration, 1)
	approveAt := s.o.ApproveAt
	if approveAt <= 0 {
		approveAt = DefaultSimApproveAt
	}
	a, b := sc.file(0), sc.file(1)
	lines := []string{
		progress(loc.T("worker.sim.review.reading", "File", a)),
		progress(loc.T("worker.sim.review.reading", "File", b)),
		progress(loc.T("worker.sim.testing", "Command", "go test ./...")),
	}
	for _, l := range lines {
		if s.pause(s.o.Duration / 4); s.ctx.Err() != nil {
			return SimCancelledCode
		}
		s.write(s.out, l)
	}
	var decision, reason string
	var findings []string
	switch {
	case s.o.Escalate:
		decision, reason = "request_changes", loc.T("worker.sim.review.escalate")
	case s.o.NeverApprove || it < approveAt:
		decision, reason = "request_changes", loc.T("worker.sim.review.changes", "Count", 2)
		findings = simFindings(loc, a, b, it)
	default:
		decision, reason = "approve", loc.T("worker.sim.review.approve")
	}
	for _, f := range findings {
		s.write(s.out, "- "+f)
	}
	s.write(s.out, simVerdict(decision, reason, findings, s.o.Escalate))
	s.event(transcript.Event{Type: transcript.EventResult, Text: loc.T("worker.sim.review.summary", "Verdict", decision, "Reason", reason)})
	if s.err != nil {
		return 1
	}
	return 0
}

// simFindings are two concrete findings about the files read.
func simFindings(loc *i18n.Localizer, a, b string, it int) []string {
	return []string{
		loc.T("worker.sim.review.finding_empty", "File", a, "Line", 10+7*it),
		loc.T("worker.sim.review.finding_test", "File", b),
	}
}

func quote(s string) string {
	out := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			out = append(out, '\\', byte(r))
		case r < 0x20:
			out = append(out, []byte(`\u00`)...)
			out = append(out, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			out = append(out, string(r)...)
		}
	}
	return string(append(out, '"'))
}
