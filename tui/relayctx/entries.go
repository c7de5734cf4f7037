package relayctx

import (
	"encoding/json"

	"github.com/daokit/daokit/compact"
)

// The entries the window records. Field order is the JSON order, so the
// same observation always gives the same bytes.

// logEntry is one line of worker output (execution_logs).
type logEntry struct {
	EventType string `json:"event_type"`
	TaskID    string `json:"task_id,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	StepID    string `json:"step_id,omitempty"`
	Lane      string `json:"lane,omitempty"`
	Stream    string `json:"stream,omitempty"`
	Line      string `json:"line"`
}

// statusEntry is a status report (status_reports): a run's state, the
// heartbeat, an acknowledgement, the controller's state.
type statusEntry struct {
	EventType string `json:"event_type"`
	Status    string `json:"status"`
	TaskID    string `json:"task_id,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	StepID    string `json:"step_id,omitempty"`
	Lane      string `json:"lane,omitempty"`
	Reason    string `json:"reason_code,omitempty"`
}

// failureEntry is a warning or error event of the ledger (failure_noise).
type failureEntry struct {
	EventType string `json:"event_type"`
	Severity  string `json:"severity"`
	TaskID    string `json:"task_id,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	StepID    string `json:"step_id,omitempty"`
	DedupKey  string `json:"dedup_key,omitempty"`
	Reason    string `json:"reason_code,omitempty"`
	Message   string `json:"message,omitempty"`
}

// errorEntry is a failure of the relay itself (api_error_dumps), kept
// structured so that compaction keeps it.
type errorEntry struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// op is one change to the context, kept so that it can be applied again
// to the result of a compaction that started before it.
type op func(*compact.Context)

// appendOp appends v to list l and drops the list's oldest entries past
// its cap.
func appendOp(l compact.List, v any) op {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return func(c *compact.Context) {
		_ = c.Append(l, raw)
		c.Trim(l, listCap[l])
	}
}

// listCap bounds each list of the context between compactions, which may
// keep everything (a long run's output is neither stale nor repeated): a
// saved context once held 88 execution logs. Worker output matters least
// to a successor and gets the smallest share.
var listCap = [...]int{
	compact.ExecutionLogs: 40,
	compact.StatusReports: 64,
	compact.FailureNoise:  64,
	compact.APIErrorDumps: 32,
	compact.EvidencePaths: 256,
}

// capLists trims every list of c to its cap (a context read from a file
// written before the caps, or by hand).
func capLists(c *compact.Context) bool {
	trimmed := false
	for _, l := range compact.Lists() {
		trimmed = c.Trim(l, listCap[l]) || trimmed
	}
	return trimmed
}
