package component

import (
	"regexp"
	"strings"
	"sync"

	"github.com/daokit/daokit/i18n"
)

// Label kinds: the catalog prefix of each vocabulary of stored values.
// A value's label is the message "<kind>.<value>".
const (
	KindPipeline   = "tui.status.pipeline"
	KindHeartbeat  = "tui.status.heartbeat"
	KindLease      = "tui.status.lease"
	KindSeverity   = "tui.severity"
	KindEvent      = "tui.event"
	KindNext       = "tui.next"
	KindReason     = "tui.reason"
	KindStep       = "tui.step"
	KindRun        = "tui.run"
	KindController = "tui.controller"
	KindOperation  = "tui.operation"
	// KindCriterion labels what a step's acceptance checked (its
	// ACCEPTANCE_PASSED's criterion).
	KindCriterion = "tui.criterion"
)

// vocabularies lists the stored values the catalogs label. Values stay on
// screen as they are stored; the label is extra text in the person's
// language. A value missing here (written by another tool) shows raw.
var vocabularies = map[string][]string{
	KindPipeline:  {"PLANNING", "ANALYSIS", "FREEZE", "EXECUTE", "ACCEPT", "DONE", "DRAINING", "BLOCKED", "FAILED"},
	KindHeartbeat: {"IDLE", "RUNNING", "ACTIVE", "WARNING", "STALE", "BLOCKED", "UNKNOWN"},
	KindLease:     {"ACTIVE", "RELEASED", "EXPIRED", "TAKEN_OVER"},
	KindSeverity:  {"INFO", "WARN", "ERROR"},
	KindEvent: {"STEP_STARTED", "STEP_COMPLETED", "STEP_FAILED", "ACCEPTANCE_PASSED", "ACCEPTANCE_FAILED",
		"HEARTBEAT_WARNING", "HEARTBEAT_STALE", "LEASE_TAKEOVER", "SYSTEM", "AGENT", "HUMAN"},
	KindNext: {"dispatch", "wait_for_lane", "wait_for_worker", "none", "retry_or_cancel", "await_user", "review", "resume", "complete"},
	KindReason: {"MANUAL_TAKEOVER", "VALID_UNEXPIRED_LEASE", "LEASE_NOT_ADOPTED", "HEARTBEAT_STALE",
		"HEARTBEAT_WARNING_OBSERVE_ONLY", "VALID_ACTIVE_LEASE", "MISSING_CONTROLLER_LEASE",
		"NON_ACTIVE_CONTROLLER_LEASE", "MALFORMED_LEASE_EXPIRY", "EXPIRED_CONTROLLER_LEASE",
		"HANDOFF_APPLY_ERROR", "RESTART_LIMIT_REACHED", "WORKER_EXIT_NONZERO", "WORKER_CANCELLED",
		"WORKER_HUNG", "RUN_INTERRUPTED", "RUN_ABANDONED", "WORKER_KILLED_SIGNAL", "LEASE_LOST", "LEDGER_WRITE_FAILED",
		"WORKER_OUTPUT_INVALID", "WORKER_REPORTED_FAILURE", "WORKER_SPAWN_FAILED", "WORKER_TIMEOUT",
		"CONTROLLER_SUCCESSION", "MAX_ITERATIONS_REACHED", "AGENT_ESCALATED", "WORKFLOW_ERROR",
		"AGENT_PERMISSION_DENIED", "AGENT_AUTH_FAILED", "AGENT_NOT_LOGGED_IN", "AGENT_RATE_LIMITED",
		"AGENT_PROVIDER_ERROR", "AGENT_MAX_TURNS", "AGENT_OPTION_REFUSED", "AGENT_NO_ANSWER",
		"AGENT_MODEL_REFUSED"},
	KindStep: {"owned_by_lane", "lease_released", "lease_expired", "failed_non_adopted_lease", "queued",
		"dispatched", "completed", "failed", "retry_requested", "accepted", "done", "passed", "verified"},
	KindRun:        {"idle", "waiting", "requesting", "generating", "persisting", "completed", "failed", "cancelled", "timedOut"},
	KindController: {"starting", "ready", "stopping", "disk_full"},
	KindOperation: {"CONTROLLER_STARTED", "CONTROLLER_STOPPED", "INSTRUCTION_RECEIVED", "CONTROL_RECEIVED",
		"INSTRUCTION_RESUMED", "RUN_STATE", "RUN_FINISHED", "WORKER_OUTPUT", "LEDGER_REPAIRED", "LEASE_ADOPTED",
		"HANDOFF_APPLIED", "HANDOFF_APPLY_FAILED", "HOOK_RAN", "HOOK_SKIPPED", "CONTROLLER_FENCED", "LEASES_PRUNED",
		"LEASE_RENEW_FAILED", "LEAD_STARTED", "LEAD_EXITED", "LEAD_RESTART_LIMIT", "OUTBOX_EVENT", "ISSUE_FILED",
		"ITERATION_STARTED", "REVIEW_VERDICT", "ITERATION_FINISHED", "STEP_SUMMARY", "STEP_METRICS", "STEP_RECORDED",
		"STEP_READ_BACK",
		"WORKTREE_READY", "WORKTREE_SETUP", "WORKTREE_REMOVED", "WORKTREE_KEPT", "REVIEW_PENDING", "MERGE_REFUSED",
		"SESSION_BOUND", "SESSION_RESUME", "AGENT_RETRY",
		"LEDGER_WRITES_HELD"},
	KindCriterion: {"exit_code_zero", "result_in_log", "no_change"},
	KindRelayError: {"bad_version", "malformed", "too_large", "unknown_type", "forbidden_peer",
		"forbidden_action", "bad_request", "internal", "unavailable", "wrong_root", "closed", "timeout", "lost",
		"unsupported"},
}

// Vocabularies returns every labelled kind with its values, for tests
// that check the catalogs.
func Vocabularies() map[string][]string {
	out := make(map[string][]string, len(vocabularies))
	for k, v := range vocabularies {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Labels renders stored values in the person's language. Every label of
// the vocabularies is rendered once, when the language is chosen, so that
// drawing thousands of event rows never runs a template.
type Labels struct {
	loc *i18n.Localizer
	m   map[string]string
}

// NewLabels renders the vocabularies with loc.
func NewLabels(loc *i18n.Localizer) *Labels {
	l := &Labels{loc: loc, m: make(map[string]string)}
	for kind, values := range vocabularies {
		for _, v := range values {
			id := kind + "." + v
			if s := loc.T(id); s != id {
				l.m[id] = s
			}
		}
	}
	return l
}

// Get returns the label of value in kind, or "" when the catalogs have
// none (the caller then shows the value alone).
func (l *Labels) Get(kind, value string) string {
	if value == "" {
		return ""
	}
	if s, ok := l.m[kind+"."+value]; ok {
		return s
	}
	if kind == KindReason {
		return l.reason(value)
	}
	if kind == KindStep {
		if prefix, _, ok := strings.Cut(value, ":"); ok {
			return l.m[kind+"."+prefix]
		}
	}
	return ""
}

// Or returns the label of value, or value itself when there is none.
func (l *Labels) Or(kind, value string) string {
	if s := l.Get(kind, value); s != "" {
		return s
	}
	return value
}

// The reason-code patterns are compiled on first use: the CLI links this
// package, and most commands never word a reason code.
var (
	noOutput   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^NO_OUTPUT_(\d+)([HMS])$`) })
	noAction   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^HEARTBEAT_([A-Z]+)_NO_ACTION$`) })
	leasePrefx = "INVALID_LEASE_"
)

// reason labels the parametric reason codes: NO_OUTPUT_<n><unit>,
// HEARTBEAT_<status>_NO_ACTION and INVALID_LEASE_<lease reason>.
func (l *Labels) reason(code string) string {
	if m := noOutput().FindStringSubmatch(code); m != nil {
		return l.loc.T("tui.reason.no_output."+strings.ToLower(m[2]), "N", m[1])
	}
	if m := noAction().FindStringSubmatch(code); m != nil {
		return l.loc.T("tui.reason.no_action", "Status", m[1])
	}
	if rest, ok := strings.CutPrefix(code, leasePrefx); ok {
		if inner := l.m[KindReason+"."+rest]; inner != "" {
			return l.loc.T("tui.reason.invalid_lease", "Reason", inner)
		}
	}
	return ""
}
