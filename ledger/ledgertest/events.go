package ledgertest

import (
	"strconv"
)

// nodes and statuses of the orchestrator loop, in run order.
var (
	nodes    = []string{"extract", "plan", "dispatch", "verify", "transition"}
	statuses = []string{"PLANNING", "ANALYSIS", "FREEZE", "EXECUTE", "ACCEPT", "DONE"}
	routes   = []string{"extract.default.analysis", "plan.default.freeze", "dispatch.default.execute",
		"verify.default.accept", "transition.acceptance_not_failed.done"}
	reasons = []string{"extract_completed", "plan_completed", "dispatch_completed", "verify_completed",
		"acceptance_not_failed_finalize"}
)

// line builds one compact JSON object. Every string it is given is
// plain ASCII without quotes or backslashes, so no escaping is needed.
type line struct{ b []byte }

func (l *line) key(k string) {
	if c := l.b[len(l.b)-1]; c != '{' && c != '[' {
		l.b = append(l.b, ',')
	}
	l.b = append(l.b, '"')
	l.b = append(l.b, k...)
	l.b = append(l.b, '"', ':')
}

func (l *line) str(k, v string) {
	l.key(k)
	l.b = append(l.b, '"')
	l.b = append(l.b, v...)
	l.b = append(l.b, '"')
}

func (l *line) null(k string) {
	l.key(k)
	l.b = append(l.b, "null"...)
}

func (l *line) num(k string, v int) {
	l.key(k)
	l.b = strconv.AppendInt(l.b, int64(v), 10)
}

func (l *line) boolean(k string, v bool) {
	l.key(k)
	l.b = strconv.AppendBool(l.b, v)
}

func (l *line) strs(k string, vs ...string) {
	l.key(k)
	l.b = append(l.b, '[')
	for i, v := range vs {
		if i > 0 {
			l.b = append(l.b, ',')
		}
		l.b = append(l.b, '"')
		l.b = append(l.b, v...)
		l.b = append(l.b, '"')
	}
	l.b = append(l.b, ']')
}

func (l *line) open(k string) {
	l.key(k)
	l.b = append(l.b, '{')
}

func (l *line) close() { l.b = append(l.b, '}') }

// envelope is the part of an event the payload writer decides.
type envelope struct {
	eventType, severity, step, dedup string
}

// AppendEvent appends one event line (with its newline) to dst. The mix
// follows the Python tool's catalogue: mostly SYSTEM heartbeat and
// transition events, some dispatches, and a tail of step, acceptance,
// heartbeat and takeover events. Lines average about 450 bytes.
func (g *Generator) AppendEvent(dst []byte) []byte {
	g.seq++
	stepNo := 1 + (g.seq/500)%3
	step := "S" + strconv.Itoa(stepNo)
	ts := g.stamp()
	l := &line{b: append(dst, '{')}
	l.str("schema_version", "1.0.0")
	l.key("event_id")
	l.b = append(l.b, `"evt_`...)
	l.b = g.appendHex(l.b, 32)
	l.b = append(l.b, '"')
	l.str("task_id", g.task)
	l.str("run_id", g.run)
	// The payload is written into a scratch line first because the
	// envelope fields before it depend on the kind of event.
	p := &line{b: make([]byte, 0, 768)}
	p.b = append(p.b, '{')
	env := g.payload(p, step, ts)
	p.close()
	if env.step == "" {
		l.null("step_id")
	} else {
		l.str("step_id", env.step)
	}
	l.str("event_type", env.eventType)
	l.str("severity", env.severity)
	l.str("timestamp", ts)
	l.key("payload")
	l.b = append(l.b, p.b...)
	if env.dedup == "" {
		l.null("dedup_key")
	} else {
		l.str("dedup_key", env.dedup)
	}
	l.close()
	return append(l.b, '\n')
}

// payload writes the payload of the next event and returns its envelope.
func (g *Generator) payload(p *line, step, ts string) envelope {
	idx := g.seq % len(nodes)
	corr := "corr:" + g.task + ":" + g.run + ":" + step
	switch k := g.rng.IntN(100); {
	case k < 36:
		p.str("node", nodes[idx])
		p.str("phase", "heartbeat")
		p.str("moment", [2]string{"before", "after"}[g.seq%2])
		p.str("status", statuses[idx])
		return envelope{"SYSTEM", "INFO", step, ""}
	case k < 60:
		g.transition(p, idx, step, corr)
		return envelope{"SYSTEM", "INFO", step, ""}
	case k < 66:
		g.dispatch(p, step, corr)
		return envelope{"SYSTEM", "INFO", step, "dispatch-invocation:" + g.task + ":" + g.run + ":" + step + ":" + strconv.Itoa(g.seq)}
	case k < 75:
		p.str("worker", "sim")
		p.str("lane", "controller")
		p.num("attempt", 1+g.rng.IntN(3))
		p.num("pid", 2000+g.rng.IntN(60000))
		p.str("command", "daokit worker sim --task-id "+g.task+" --run-id "+g.run+" --step-id "+step)
		return envelope{"STEP_STARTED", "INFO", step, ""}
	case k < 82:
		p.num("exit_code", 0)
		p.num("duration_ms", 200+g.rng.IntN(90000))
		p.strs("outputs", "artifacts/"+g.task+"/"+g.run+"/"+step+"/report.md",
			"artifacts/"+g.task+"/"+g.run+"/"+step+"/verification.log")
		return envelope{"STEP_COMPLETED", "INFO", step, ""}
	case k < 87:
		g.decision(p, ts, "HEARTBEAT_WARNING", "NO_OUTPUT_15M")
		return envelope{"HEARTBEAT_WARNING", "WARN", step, "self-heal:" + g.task + ":" + g.run + ":observe:WARNING:LEASE_VALID"}
	case k < 91:
		p.str("reason_code", "NO_OUTPUT_20M")
		p.num("silence_seconds", 1200+g.rng.IntN(600))
		p.num("stale_after_seconds", 1200)
		p.str("effective_signal_at", ts)
		return envelope{"HEARTBEAT_STALE", "WARN", step, "heartbeat-stale:" + g.task + ":" + g.run + ":" + step + ":NO_OUTPUT_20M:" + ts}
	case k < 94:
		p.str("reason_code", "LEASE_NOT_ADOPTED")
		p.str("takeover_at", ts)
		p.str("error", "worker exited with status 1: simulated crash while generating")
		return envelope{"STEP_FAILED", "ERROR", step, "step-failed:" + g.task + ":" + g.run + ":" + step + ":" + ts}
	case k < 96:
		p.str("verdict", "passed")
		p.strs("criteria", "All expected outputs exist", "verification.log has no failures")
		return envelope{"ACCEPTANCE_PASSED", "INFO", step, ""}
	case k < 97:
		p.str("verdict", "rework_required")
		p.str("reason", "verification.log reports 2 failing checks")
		return envelope{"ACCEPTANCE_FAILED", "ERROR", step, ""}
	case k < 99:
		p.str("takeover_at", ts)
		p.strs("adopted_step_ids", step)
		p.strs("failed_step_ids")
		p.str("reason_code", "MANUAL_TAKEOVER")
		return envelope{"LEASE_TAKEOVER", "INFO", "", "succession:" + g.task + ":" + g.run + ":" + ts}
	default:
		g.routeFailure(p, idx, corr)
		return envelope{"SYSTEM", "ERROR", step, ""}
	}
}

func (g *Generator) transition(p *line, idx int, step, corr string) {
	p.str("node", nodes[idx])
	p.str("from_status", statuses[idx])
	p.str("to_status", statuses[idx+1])
	p.str("route_id", routes[idx])
	p.str("route_reason", reasons[idx])
	p.str("route_predicate", "always")
	p.str("correlation_id", corr)
	p.str("branch_trace_id", "trace:"+g.task+":"+g.run+":"+step)
	p.num("branch_trace_index", idx)
	p.strs("branch_trace", routes[:idx+1]...)
}

func (g *Generator) dispatch(p *line, step, corr string) {
	thread := "thread-" + string(g.appendHex(nil, 12))
	base := "artifacts/" + g.task + "/" + g.run + "/" + step + "/" + thread + "/create/call-000-" + string(g.appendHex(nil, 8))
	p.str("node", "dispatch")
	p.num("invocation_index", 1+g.seq%4)
	p.str("controller_lane", "controller")
	p.str("correlation_id", corr)
	p.str("thread_id", thread)
	p.num("call_count", 1)
	p.num("max_resume_retries", 1)
	p.num("max_rework_attempts", 1)
	p.key("calls")
	p.b = append(p.b, '[', '{')
	p.str("action", "create")
	p.str("status", "success")
	p.num("retry_index", 0)
	p.str("thread_id", thread)
	p.str("correlation_id", corr)
	p.open("artifacts")
	p.str("request", base+"/request.json")
	p.str("output", base+"/output.json")
	p.null("error")
	p.close()
	p.boolean("llm_invoked", false)
	p.str("execution_mode", "shim_noop_fallback")
	p.b = append(p.b, '}', ']')
}

func (g *Generator) decision(p *line, ts, hb, reason string) {
	p.str("stage", "decide")
	p.str("decision_action", "observe")
	p.str("decision_reason_code", reason)
	p.str("heartbeat_status", hb[len("HEARTBEAT_"):])
	p.str("lease_reason_code", "LEASE_VALID")
	p.boolean("takeover_required", false)
	p.str("decided_at", ts)
}

func (g *Generator) routeFailure(p *line, idx int, corr string) {
	p.str("diagnostic_type", "route_guard_failure")
	p.str("node", nodes[idx])
	p.str("current_status", statuses[idx])
	p.str("attempted_target", statuses[idx+1])
	p.str("route_id", routes[idx])
	p.str("message", "route guard rejected the transition: acceptance evidence is missing")
	p.str("actionable_hint", "rerun verify after the worker writes verification.log")
	p.str("correlation_id", corr)
}
