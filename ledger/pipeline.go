package ledger

import (
	"encoding/json"
	"fmt"
	"time"
)

// SchemaVersion is the contract version of every ledger file.
const SchemaVersion = "1.0.0"

// Pipeline statuses, the orchestrator lifecycle of pipeline_state.json.
const (
	StatusPlanning = "PLANNING"
	StatusAnalysis = "ANALYSIS"
	StatusFreeze   = "FREEZE"
	StatusExecute  = "EXECUTE"
	StatusAccept   = "ACCEPT"
	StatusDone     = "DONE"
	StatusDraining = "DRAINING"
	StatusBlocked  = "BLOCKED"
	StatusFailed   = "FAILED"
)

// PipelineStatuses lists the contract's pipeline statuses in order.
func PipelineStatuses() []string {
	return []string{StatusPlanning, StatusAnalysis, StatusFreeze, StatusExecute, StatusAccept,
		StatusDone, StatusDraining, StatusBlocked, StatusFailed}
}

// PipelineState is state/pipeline_state.json. Nullable ids use "" for
// null. Unknown members are kept in Extra (and refused by Validate).
type PipelineState struct {
	SchemaVersion string
	TaskID        string
	RunID         string
	Goal          string
	Status        string
	CurrentStep   string
	Steps         []Step
	RoleLifecycle Lifecycle
	Succession    Succession
	UpdatedAt     string
	Extra         Object
}

// Step is one step contract of a pipeline.
type Step struct {
	ID                 string
	Title              string
	Category           string
	Goal               string
	Actions            []string
	AcceptanceCriteria []string
	ExpectedOutputs    []string
	Dependencies       []string
	Extra              Object
}

// Succession is the takeover metadata of a pipeline.
type Succession struct {
	Enabled        bool
	LastTakeoverAt string // "" is null
	Extra          Object
}

// NewPipelineState returns the document `daokit init` writes: no task,
// PLANNING, role_lifecycle {"orchestrator": "idle"}.
func NewPipelineState(now time.Time) PipelineState {
	return PipelineState{
		SchemaVersion: SchemaVersion,
		Status:        StatusPlanning,
		RoleLifecycle: Lifecycle{}.With("orchestrator", "idle"),
		Succession:    Succession{Enabled: true},
		UpdatedAt:     FormatTime(now),
	}
}

// Step returns the step with id, if the pipeline has it.
func (p *PipelineState) Step(id string) (*Step, bool) {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i], true
		}
	}
	return nil, false
}

// MarshalJSON writes the members in the Python tool's order.
func (p PipelineState) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.str("schema_version", p.SchemaVersion)
	w.nullable("task_id", p.TaskID)
	w.nullable("run_id", p.RunID)
	w.str("goal", p.Goal)
	w.str("status", p.Status)
	w.nullable("current_step", p.CurrentStep)
	list(w, "steps", p.Steps, (*Step).members)
	lc, err := p.RoleLifecycle.MarshalJSON()
	if err != nil {
		return nil, err
	}
	w.raw("role_lifecycle", lc)
	w.value("succession", p.Succession)
	w.str("updated_at", p.UpdatedAt)
	w.extra(p.Extra)
	return w.bytes()
}

// MarshalJSON writes the members in contract order.
func (s Step) MarshalJSON() ([]byte, error) { return marshalObject(s.members) }

func (s *Step) members(w *objectWriter) {
	w.str("id", s.ID)
	w.str("title", s.Title)
	w.str("category", s.Category)
	w.str("goal", s.Goal)
	w.strings("actions", s.Actions)
	w.strings("acceptance_criteria", s.AcceptanceCriteria)
	w.strings("expected_outputs", s.ExpectedOutputs)
	w.strings("dependencies", s.Dependencies)
	w.extra(s.Extra)
}

// MarshalJSON writes the members in contract order.
func (s Succession) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.bool("enabled", s.Enabled)
	w.nullable("last_takeover_at", s.LastTakeoverAt)
	w.extra(s.Extra)
	return w.bytes()
}

// UnmarshalJSON reads tolerantly; see ParsePipelineState.
func (p *PipelineState) UnmarshalJSON(data []byte) error {
	v, err := ParsePipelineState(data)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// ParsePipelineState reads pipeline_state.json. Members of the wrong JSON
// type are errors naming the field; unknown members go to Extra; values
// are not checked against the contract (see Validate).
func ParsePipelineState(data []byte) (PipelineState, error) {
	var p PipelineState
	r, err := newFieldReader("$", data)
	if err != nil {
		return p, withFile(err, PipelineFile)
	}
	r.str("schema_version", &p.SchemaVersion)
	r.str("task_id", &p.TaskID)
	r.str("run_id", &p.RunID)
	r.str("goal", &p.Goal)
	r.str("status", &p.Status)
	r.str("current_step", &p.CurrentStep)
	r.list("steps", func(_ int, s *fieldReader) {
		var st Step
		s.str("id", &st.ID)
		s.str("title", &st.Title)
		s.str("category", &st.Category)
		s.str("goal", &st.Goal)
		s.strs("actions", &st.Actions)
		s.strs("acceptance_criteria", &st.AcceptanceCriteria)
		s.strs("expected_outputs", &st.ExpectedOutputs)
		s.strs("dependencies", &st.Dependencies)
		st.Extra = s.extra()
		p.Steps = append(p.Steps, st)
	})
	var lc Object
	r.object("role_lifecycle", &lc)
	p.RoleLifecycle = Lifecycle(lc)
	r.nested("succession", func(s *fieldReader) {
		s.boolean("enabled", &p.Succession.Enabled)
		s.str("last_takeover_at", &p.Succession.LastTakeoverAt)
		p.Succession.Extra = s.extra()
	})
	r.str("updated_at", &p.UpdatedAt)
	p.Extra = r.extra()
	return p, withFile(r.err(), PipelineFile)
}

// Validate checks p against pipeline_state.schema.json and reports every
// problem with its JSON path.
func (p *PipelineState) Validate() error {
	var c checker
	c.schemaVersion("$.schema_version", p.SchemaVersion)
	c.enum("$.status", p.Status, PipelineStatuses())
	for i, s := range p.Steps {
		path := fmt.Sprintf("$.steps[%d]", i)
		c.nonEmpty(path+".id", s.ID)
		c.nonEmpty(path+".title", s.Title)
		c.nonEmpty(path+".category", s.Category)
		c.nonEmpty(path+".goal", s.Goal)
		c.strictList(path+".actions", s.Actions)
		c.strictList(path+".acceptance_criteria", s.AcceptanceCriteria)
		c.strictList(path+".expected_outputs", s.ExpectedOutputs)
		c.strictList(path+".dependencies", s.Dependencies)
		c.noExtra(path, s.Extra)
	}
	if len(p.RoleLifecycle) == 0 {
		c.add("$.role_lifecycle", ProblemNoProperties, "")
	}
	for _, f := range p.RoleLifecycle {
		var s string
		path := "$.role_lifecycle." + f.Key
		if json.Unmarshal(f.Value, &s) != nil {
			c.add(path, ProblemType, "a string")
		} else {
			c.nonEmpty(path, s)
		}
	}
	c.optionalDateTime("$.succession.last_takeover_at", p.Succession.LastTakeoverAt)
	c.noExtra("$.succession", p.Succession.Extra)
	c.dateTime("$.updated_at", p.UpdatedAt)
	c.noExtra("$", p.Extra)
	return withFile(c.err(), PipelineFile)
}

// Lifecycle is role_lifecycle: an ordered map of role to status string.
// Non-string values written by other tools are kept as they are.
type Lifecycle Object

// Get returns the value of key if it is a string.
func (l Lifecycle) Get(key string) string { return Object(l).String(key) }

// With returns l with key set to value (in place if present, else appended).
func (l Lifecycle) With(key, value string) Lifecycle {
	return Lifecycle(Object(l).With(key, value))
}

// Without returns l without key.
func (l Lifecycle) Without(key string) Lifecycle {
	out := l[:0:0]
	for _, f := range l {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return out
}

// Clone returns a copy that shares nothing with l.
func (l Lifecycle) Clone() Lifecycle { return Lifecycle(Object(l).Clone()) }

// MarshalJSON writes the members in order; an empty map is {}.
func (l Lifecycle) MarshalJSON() ([]byte, error) { return Object(l).MarshalJSON() }

// Clone returns a deep copy of o.
func (o Object) Clone() Object {
	if o == nil {
		return nil
	}
	out := make(Object, len(o))
	for i, f := range o {
		out[i] = Field{Key: f.Key, Value: append(json.RawMessage(nil), f.Value...)}
	}
	return out
}
