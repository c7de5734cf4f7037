package ledgertest

import (
	"bytes"
	"encoding/json"
	"time"
)

// document indents a compact object the way Python's
// json.dumps(indent=2) does, plus the trailing newline.
func document(l *line) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, l.b, "", "  "); err != nil {
		// Only a bug in this file gets here; the ledger tests that
		// parse every generated document would report it.
		buf.Reset()
		buf.Write(l.b)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// Pipeline returns pipeline_state.json of a run in EXECUTE with the three
// steps of the text planner.
func (g *Generator) Pipeline() []byte {
	l := &line{b: []byte{'{'}}
	l.str("schema_version", "1.0.0")
	l.str("task_id", g.task)
	l.str("run_id", g.run)
	l.str("goal", "Add a retry budget to the worker supervisor and document it")
	l.str("status", "EXECUTE")
	l.str("current_step", "S1")
	l.key("steps")
	l.b = append(l.b, '[')
	steps := []struct{ id, title, category, output string }{
		{"S1", "Extract actionable scope from text input", "analysis", "planning/scope-summary.md"},
		{"S2", "Implement the minimal viable change set", "implementation", "implementation/change-set.patch"},
		{"S3", "Verify and capture auditable evidence", "verification", "report.md"},
	}
	for i, s := range steps {
		if i > 0 {
			l.b = append(l.b, ',')
		}
		l.b = append(l.b, '{')
		l.str("id", s.id)
		l.str("title", s.title)
		l.str("category", s.category)
		l.str("goal", "Add a retry budget to the worker supervisor and document it")
		l.strs("actions", "Read the goal and constraints", "Produce "+s.output)
		l.strs("acceptance_criteria", s.output+" exists and is non-empty")
		l.strs("expected_outputs", s.output)
		if i == 0 {
			l.strs("dependencies")
		} else {
			l.strs("dependencies", steps[i-1].id)
		}
		l.close()
	}
	l.b = append(l.b, ']')
	l.open("role_lifecycle")
	l.str("orchestrator", "dispatch_complete")
	l.str("controller_lane", "controller")
	l.str("controller_ownership", "controller:S1")
	l.str("lane:controller", "active_step:S1")
	l.str("step:S1", "owned_by_lane:controller")
	l.str("route:last_node", "dispatch")
	l.str("route:trace_id", "trace:"+g.task+":"+g.run+":S1")
	l.str("route:trace_index", "2")
	l.close()
	l.open("succession")
	l.boolean("enabled", true)
	l.null("last_takeover_at")
	l.close()
	l.str("updated_at", string(appendTime(nil, g.now)))
	l.close()
	return document(l)
}

// Heartbeat returns heartbeat_status.json of a running worker.
func (g *Generator) Heartbeat() []byte {
	l := &line{b: []byte{'{'}}
	l.str("schema_version", "1.0.0")
	l.str("status", "RUNNING")
	l.str("last_heartbeat_at", string(appendTime(nil, g.now)))
	l.null("reason_code")
	l.num("warning_after_seconds", 900)
	l.num("stale_after_seconds", 1200)
	l.null("last_escalation_at")
	l.str("updated_at", string(appendTime(nil, g.now)))
	l.close()
	return document(l)
}

// Leases returns process_leases.json with a released lease and the
// active one of the current step.
func (g *Generator) Leases() []byte {
	l := &line{b: []byte{'{'}}
	l.str("schema_version", "1.0.0")
	l.key("leases")
	l.b = append(l.b, '[')
	for i, status := range []string{"RELEASED", "ACTIVE"} {
		if i > 0 {
			l.b = append(l.b, ',')
		}
		created := g.now.Add(time.Duration(i-2) * time.Minute)
		l.b = append(l.b, '{')
		l.str("lane", "controller")
		l.str("step_id", "S1")
		l.str("task_id", g.task)
		l.str("run_id", g.run)
		l.str("thread_id", "cli-"+string(g.appendHex(nil, 6)))
		l.num("pid", 4000+i)
		l.str("lease_token", "lease_"+string(g.appendHex(nil, 32)))
		l.str("expiry", string(appendTime(nil, created.Add(20*time.Minute))))
		l.str("status", status)
		l.str("last_heartbeat_at", string(appendTime(nil, created)))
		l.str("created_at", string(appendTime(nil, created)))
		l.str("updated_at", string(appendTime(nil, created)))
		l.close()
	}
	l.b = append(l.b, ']')
	l.str("updated_at", string(appendTime(nil, g.now)))
	l.close()
	return document(l)
}
