package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Handoff next actions.
const (
	NextActionResume   = "resume"
	NextActionComplete = "complete"
)

// HandoffPackage is state/handoff_package.json: what a successor needs to
// resume a run. The Python tool's fields come first; daokit adds the
// relay's keep set (goal, constraints, latest instruction, blockers, route
// summary) as further top-level members, which the Python tool reads and
// hashes like any other member.
type HandoffPackage struct {
	SchemaVersion       string
	TaskID              string
	RunID               string
	CurrentStep         string // "" is null
	OpenAcceptanceItems []AcceptanceItem
	EvidencePaths       []string
	NextAction          string
	ResumableStepIDs    []string
	SkippedStepIDs      []string
	StepStatus          StepStatus
	CreatedAt           string
	// Keep set of the relay context, daokit's additions.
	Goal              string
	Constraints       []string
	LatestInstruction string
	CurrentBlockers   []string
	RouteSummary      *Route
	PackageHash       string
	Extra             Object
}

// AcceptanceItem is one open acceptance criterion of a resumable step.
type AcceptanceItem struct {
	StepID    string `json:"step_id"`
	Criterion string `json:"criterion"`
}

// StepStatus classifies the steps of the run.
type StepStatus struct {
	Accepted []string
	Failed   []string
	Pending  []string
}

// MarshalJSON keeps the three lists in order, [] when empty.
func (s StepStatus) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.strings("accepted", s.Accepted)
	w.strings("failed", s.Failed)
	w.strings("pending", s.Pending)
	return w.bytes()
}

// members returns every top-level member except package_hash, in order.
func (h HandoffPackage) members() Object {
	items := h.OpenAcceptanceItems
	if items == nil {
		items = []AcceptanceItem{}
	}
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	o := ObjectOf(
		"schema_version", h.SchemaVersion,
		"task_id", h.TaskID,
		"run_id", h.RunID,
	)
	if h.CurrentStep == "" {
		o = append(o, Field{Key: "current_step", Value: json.RawMessage("null")})
	} else {
		o = o.With("current_step", h.CurrentStep)
	}
	o = o.With("open_acceptance_items", items).
		With("evidence_paths", nz(h.EvidencePaths)).
		With("next_action", h.NextAction).
		With("resumable_step_ids", nz(h.ResumableStepIDs)).
		With("skipped_step_ids", nz(h.SkippedStepIDs)).
		With("step_status", h.StepStatus).
		With("created_at", h.CreatedAt)
	if h.Goal != "" {
		o = o.With("goal", h.Goal)
	}
	if h.Constraints != nil {
		o = o.With("constraints", h.Constraints)
	}
	if h.LatestInstruction != "" {
		o = o.With("latest_instruction", h.LatestInstruction)
	}
	if h.CurrentBlockers != nil {
		o = o.With("current_blockers", h.CurrentBlockers)
	}
	if h.RouteSummary != nil {
		o = o.With("controller_route_summary", *h.RouteSummary)
	}
	return append(o, h.Extra...)
}

// ComputeHash returns the package hash the Python tool computes: SHA-256
// of the canonical JSON (sorted keys, ASCII, compact) of every member but
// package_hash itself.
func (h HandoffPackage) ComputeHash() (string, error) {
	canon, err := MarshalCanonical(h.members())
	if err != nil {
		return "", fmt.Errorf("hash handoff package: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// MarshalJSON writes the members in the Python tool's order, package_hash
// last.
func (h HandoffPackage) MarshalJSON() ([]byte, error) {
	o := h.members()
	o = append(o, Field{Key: "package_hash", Value: mustString(h.PackageHash)})
	return o.MarshalJSON()
}

func mustString(s string) json.RawMessage {
	raw, _ := marshalValue(s)
	return raw
}

// ParseHandoffPackage reads handoff_package.json without checking its
// hash (see Validate).
func ParseHandoffPackage(data []byte) (HandoffPackage, error) {
	var h HandoffPackage
	r, err := newFieldReader("$", data)
	if err != nil {
		return h, withFile(err, HandoffFile)
	}
	r.str("schema_version", &h.SchemaVersion)
	r.str("task_id", &h.TaskID)
	r.str("run_id", &h.RunID)
	r.str("current_step", &h.CurrentStep)
	r.list("open_acceptance_items", func(_ int, s *fieldReader) {
		var item AcceptanceItem
		s.str("step_id", &item.StepID)
		s.str("criterion", &item.Criterion)
		h.OpenAcceptanceItems = append(h.OpenAcceptanceItems, item)
	})
	r.strs("evidence_paths", &h.EvidencePaths)
	r.str("next_action", &h.NextAction)
	r.strs("resumable_step_ids", &h.ResumableStepIDs)
	r.strs("skipped_step_ids", &h.SkippedStepIDs)
	r.nested("step_status", func(s *fieldReader) {
		s.strs("accepted", &h.StepStatus.Accepted)
		s.strs("failed", &h.StepStatus.Failed)
		s.strs("pending", &h.StepStatus.Pending)
	})
	r.str("created_at", &h.CreatedAt)
	r.str("goal", &h.Goal)
	r.strs("constraints", &h.Constraints)
	r.str("latest_instruction", &h.LatestInstruction)
	r.strs("current_blockers", &h.CurrentBlockers)
	r.nested("controller_route_summary", func(s *fieldReader) {
		var rs Route
		s.str("task_id", &rs.TaskID)
		s.str("run_id", &rs.RunID)
		s.str("active_lane", &rs.ActiveLane)
		s.str("active_step", &rs.ActiveStep)
		s.str("next_action", &rs.NextAction)
		h.RouteSummary = &rs
	})
	r.str("package_hash", &h.PackageHash)
	h.Extra = r.extra()
	return h, withFile(r.err(), HandoffFile)
}

// ProblemHash is the ValidationError code of a package whose hash does not
// match its content.
const ProblemHash = "hash_mismatch"

// Validate applies the Python tool's package checks: non-blank ids,
// next action and created_at, non-blank list items, and a matching hash.
func (h *HandoffPackage) Validate() error {
	var c checker
	c.nonEmpty("$.schema_version", h.SchemaVersion)
	c.nonEmpty("$.task_id", h.TaskID)
	c.nonEmpty("$.run_id", h.RunID)
	for i, item := range h.OpenAcceptanceItems {
		c.nonEmpty(fmt.Sprintf("$.open_acceptance_items[%d].step_id", i), item.StepID)
		c.nonEmpty(fmt.Sprintf("$.open_acceptance_items[%d].criterion", i), item.Criterion)
	}
	c.strictList("$.evidence_paths", h.EvidencePaths)
	c.nonEmpty("$.next_action", h.NextAction)
	c.strictList("$.resumable_step_ids", h.ResumableStepIDs)
	c.strictList("$.skipped_step_ids", h.SkippedStepIDs)
	c.nonEmpty("$.created_at", h.CreatedAt)
	c.nonEmpty("$.package_hash", h.PackageHash)
	if h.PackageHash != "" {
		if want, err := h.ComputeHash(); err != nil || want != h.PackageHash {
			c.add("$.package_hash", ProblemHash, "")
		}
	}
	return withFile(c.err(), HandoffFile)
}
