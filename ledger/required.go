package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
)

// shape lists the members a contract object requires, and the shapes of
// its nested objects and of the objects in its lists.
type shape struct {
	keys   []string
	nested map[string]shape
	items  map[string]shape
}

// requiredShapes are the "required" lists of the contract schemas. The
// typed values cannot tell an absent member from a null or empty one, and
// the encoders always write every member, so presence is checked on the
// bytes a reader loaded, not by Validate.
var requiredShapes = map[string]shape{
	PipelineFile: {
		keys: []string{"schema_version", "task_id", "run_id", "goal", "status", "current_step",
			"steps", "role_lifecycle", "succession", "updated_at"},
		nested: map[string]shape{"succession": {keys: []string{"enabled", "last_takeover_at"}}},
		items: map[string]shape{"steps": {keys: []string{"id", "title", "category", "goal", "actions",
			"acceptance_criteria", "expected_outputs", "dependencies"}}},
	},
	HeartbeatFile: {keys: []string{"schema_version", "status", "last_heartbeat_at", "reason_code", "updated_at"}},
	LeasesFile: {
		keys: []string{"schema_version", "leases", "updated_at"},
		items: map[string]shape{"leases": {keys: []string{"lane", "step_id", "task_id", "run_id", "thread_id",
			"pid", "lease_token", "expiry", "status", "last_heartbeat_at", "created_at", "updated_at"}}},
	},
	EventsFile: {keys: []string{"schema_version", "event_id", "task_id", "run_id", "step_id", "event_type",
		"severity", "timestamp", "payload", "dedup_key"}},
}

// missingMembers reports, as ValidationErrors with ProblemRequired, the
// required members that data (a document of the named file) lacks.
// Members of the wrong type are left to the parser.
func missingMembers(file string, data []byte) error {
	sh, ok := requiredShapes[file]
	if !ok {
		return nil
	}
	obj, err := decodeObject(data)
	if err != nil {
		return nil
	}
	var errs []error
	sh.check("$", obj, &errs)
	return withFile(errors.Join(errs...), file)
}

func (sh shape) check(path string, obj Object, errs *[]error) {
	for _, k := range sh.keys {
		if _, ok := obj.Get(k); !ok {
			*errs = append(*errs, &ValidationError{Path: path + "." + k, Code: ProblemRequired})
		}
	}
	for k, sub := range sh.nested {
		if raw, ok := obj.Get(k); ok {
			if o, err := decodeObject(raw); err == nil {
				sub.check(path+"."+k, o, errs)
			}
		}
	}
	for k, sub := range sh.items {
		raw, ok := obj.Get(k)
		if !ok {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		for i, item := range items {
			if o, err := decodeObject(item); err == nil {
				sub.check(fmt.Sprintf("%s.%s[%d]", path, k, i), o, errs)
			}
		}
	}
}
